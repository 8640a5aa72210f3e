"""Accounts mode against a hostile user (issue 34, items 4 and 10): sign-in back-off with
Retry-After, the same answer for unknown emails, argon2 off the event loop; a workspace
keeps an owner; a conversation is written by whoever asked in it; an event stream ends
when its credentials do; upload names lose their path; /api/health names no paths."""

from __future__ import annotations

import asyncio
import json
import re
import statistics
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest
from fastapi import FastAPI

from marginalia.api.app import create_app
from marginalia.config import AuthSettings, Settings
from marginalia.runtime import Runtime, open_runtime
from marginalia.usecases import accounts

PASSWORD = "correct horse battery"
NOTE = b"# Rye\n\nRye dough ferments faster than wheat dough at room temperature.\n"


@dataclass
class Site:
    app: FastAPI
    rt: Runtime
    emails: dict[str, str]
    tokens: dict[str, str]
    workspace: str


@pytest.fixture(scope="module")
async def site(settings: Settings) -> AsyncIterator[Site]:
    auth = AuthSettings(mode="accounts", sign_in_backoff_s=1.0)
    rt = await open_runtime(settings.model_copy(update={"auth": auth}))
    app = create_app(rt.settings, runtime=rt)
    app.state.runtime = rt
    tag = uuid.uuid4().hex[:8]
    emails, tokens = {}, {}
    for who in ("owner", "reader", "other"):
        emails[who] = f"{who}-{tag}@example.org"
        await accounts.add_user(rt, email=emails[who], password=PASSWORD)
        tokens[who] = (await accounts.create_token(rt, email=emails[who], name="t"))[1]
    async with _client(app, tokens["owner"]) as owner:
        ws = (await owner.post("/api/workspaces", json={"name": f"hostile {tag}"})).json()["id"]
        shared = await owner.put(
            f"/api/workspaces/{ws}/members", json={"email": emails["reader"], "role": "reader"}
        )
        assert shared.status_code == 200, shared.text
    try:
        yield Site(app, rt, emails, tokens, ws)
    finally:
        await rt.close()


def _client(
    app: FastAPI, token: str | None = None, address: str = "127.0.0.1"
) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False, client=(address, 4000))
    return httpx.AsyncClient(transport=transport, base_url="http://test", headers=headers)


async def _sign_in(http: httpx.AsyncClient, email: str, password: str) -> httpx.Response:
    return await http.post("/api/auth/session", json={"email": email, "password": password})


# ------------------------------------------------------------------------------ sign-in


async def test_forty_wrong_passwords_then_the_right_one_is_refused_with_retry_after(
    site: Site,
) -> None:
    """The issue: 40 wrong passwords in 18 s, then the right one accepted."""
    email = f"victim-{uuid.uuid4().hex[:8]}@example.org"
    await accounts.add_user(site.rt, email=email, password=PASSWORD)
    async with _client(site.app, address="10.0.0.1") as http:
        statuses = [(await _sign_in(http, email, f"guess {n}")).status_code for n in range(40)]
        right = await _sign_in(http, email, PASSWORD)
    assert statuses[:5] == [401] * 5  # the free attempts
    assert statuses.count(401) <= 7 and statuses[-1] == 429
    assert right.status_code == 429 and "marginalia_session" not in right.cookies
    assert right.json()["error"] == "too_many_attempts"
    assert 1 <= int(right.headers["Retry-After"]) <= 900
    # Once the block passes, the right password works (and the count starts again).
    await asyncio.sleep(int(right.headers["Retry-After"]) + 0.2)
    async with _client(site.app, address="10.0.0.2") as http:
        assert (await _sign_in(http, email, PASSWORD)).status_code == 200


async def test_an_unknown_email_answers_like_a_known_one(site: Site) -> None:
    """Same statuses in the same order, same bodies, about the same time."""
    known = f"known-{uuid.uuid4().hex[:8]}@example.org"
    await accounts.add_user(site.rt, email=known, password=PASSWORD)
    runs: dict[str, tuple[list[int], list[str], list[float]]] = {}
    for label, email, address in (
        ("known", known, "10.1.0.1"),
        ("unknown", f"ghost-{uuid.uuid4().hex[:8]}@example.org", "10.1.0.2"),
    ):
        async with _client(site.app, address=address) as http:
            statuses, bodies, times = [], [], []
            for n in range(8):
                started = time.perf_counter()
                r = await _sign_in(http, email, f"wrong {n}")
                times.append(time.perf_counter() - started)
                statuses.append(r.status_code)
                bodies.append(r.json()["detail"])
            runs[label] = (statuses, bodies, times)
    assert runs["known"][0] == runs["unknown"][0]
    assert [re.sub(r"\d+ s$", "", b) for b in runs["known"][1]] == [
        re.sub(r"\d+ s$", "", b) for b in runs["unknown"][1]
    ]
    known_t = statistics.median(runs["known"][2][:5])  # the attempts that checked a password
    unknown_t = statistics.median(runs["unknown"][2][:5])
    assert 0.5 < unknown_t / known_t < 2.0, (known_t, unknown_t)


async def test_one_address_trying_many_accounts_is_blocked(site: Site) -> None:
    async with _client(site.app, address="10.2.0.1") as http:
        statuses = [
            (await _sign_in(http, f"spray-{n}@example.org", "Winter2026!")).status_code
            for n in range(24)
        ]
    # 20 free, the 21st checked (and blocking the next), then 429s.
    assert statuses[:21] == [401] * 21 and statuses[21:] == [429] * 3


async def test_concurrent_guesses_are_counted_before_they_are_checked(site: Site) -> None:
    email = f"burst-{uuid.uuid4().hex[:8]}@example.org"
    await accounts.add_user(site.rt, email=email, password=PASSWORD)
    async with _client(site.app, address="10.3.0.1") as http:
        answers = await asyncio.gather(*(_sign_in(http, email, f"g{n}") for n in range(20)))
    statuses = [a.status_code for a in answers]
    assert statuses.count(401) <= 6 and statuses.count(429) >= 14  # 5 free + the one that blocks


async def test_password_hashing_leaves_the_event_loop_free(site: Site) -> None:
    """While six clients sign in, the loop still wakes on time: its worst lag stays below
    the time of one password check (argon2 on the loop blocked it for each check)."""
    email = f"busy-{uuid.uuid4().hex[:8]}@example.org"
    await accounts.add_user(site.rt, email=email, password=PASSWORD)
    async with _client(site.app, address="10.4.0.1") as http:
        started = time.perf_counter()
        assert (await _sign_in(http, email, PASSWORD)).status_code == 200
        one_check = time.perf_counter() - started
        lags: list[float] = []
        done = asyncio.Event()

        async def probe() -> None:
            while not done.is_set():
                before = time.perf_counter()
                await asyncio.sleep(0.005)
                lags.append(time.perf_counter() - before - 0.005)

        async def clients() -> None:
            await asyncio.gather(
                *(_sign_in(http, email, PASSWORD) for _ in range(6)),
            )
            done.set()

        await asyncio.gather(probe(), clients())
    assert lags and max(lags) < max(one_check, 0.05), (max(lags), one_check)


# ------------------------------------------------------------------------------ item 10


async def test_the_last_owner_can_neither_demote_themselves_nor_leave(site: Site) -> None:
    owner_id = (
        await accounts.authenticate(site.rt, bearer=site.tokens["owner"], cookie=None)
    ).user_id
    ws = site.workspace
    async with _client(site.app, site.tokens["owner"]) as owner:
        demote = await owner.put(
            f"/api/workspaces/{ws}/members", json={"email": site.emails["owner"], "role": "reader"}
        )
        assert demote.status_code == 409 and "keeps an owner" in demote.json()["detail"]
        leave = await owner.delete(f"/api/workspaces/{ws}/members/{owner_id}")
        assert leave.status_code == 409
        roles = {
            m["email"]: m["role"] for m in (await owner.get(f"/api/workspaces/{ws}/members")).json()
        }
        assert roles[site.emails["owner"]] == "owner"
        # With a second owner, the first may step down.
        other = await owner.put(
            f"/api/workspaces/{ws}/members", json={"email": site.emails["other"], "role": "owner"}
        )
        assert other.status_code == 200
    async with _client(site.app, site.tokens["other"]) as second:
        assert (await second.get(f"/api/workspaces/{ws}")).status_code == 200  # accepted
    async with _client(site.app, site.tokens["owner"]) as owner:
        stepped = await owner.put(
            f"/api/workspaces/{ws}/members", json={"email": site.emails["owner"], "role": "reader"}
        )
        assert stepped.status_code == 200 and stepped.json()["status"] == "member"
    async with _client(site.app, site.tokens["other"]) as second:
        back = await second.put(
            f"/api/workspaces/{ws}/members", json={"email": site.emails["owner"], "role": "owner"}
        )
        assert back.status_code == 200
        other_id = (
            await accounts.authenticate(site.rt, bearer=site.tokens["other"], cookie=None)
        ).user_id
        assert (await second.delete(f"/api/workspaces/{ws}/members/{other_id}")).status_code == 204


async def _ask(http: httpx.AsyncClient, ws: str, conversation: str | None = None) -> httpx.Response:
    body: dict[str, str] = {"question": "How fast does rye ferment?"}
    if conversation:
        body["conversation_id"] = conversation
    return await http.post(f"/api/workspaces/{ws}/ask", json=body)


async def test_a_conversation_is_written_only_by_whoever_asked(site: Site) -> None:
    ws = site.workspace
    async with (
        _client(site.app, site.tokens["owner"]) as owner,
        _client(site.app, site.tokens["reader"]) as reader,
    ):
        mine = await _ask(owner, ws)
        conversation = json.loads(mine.text.splitlines()[0])["conversation_id"]
        assert conversation
        # The reader reads it, but cannot post into it, rename or delete it.
        assert (await reader.get(f"/api/conversations/{conversation}")).status_code == 200
        intrusion = await _ask(reader, ws, conversation)
        assert intrusion.status_code == 403 and intrusion.json()["error"] == "forbidden"
        renamed = await reader.patch(f"/api/conversations/{conversation}", json={"title": "x"})
        assert renamed.status_code == 403
        messages = (await owner.get(f"/api/conversations/{conversation}")).json()["messages"]
        assert len(messages) == 2  # the owner's question and its answer, nothing more
        # The reader's own conversation is theirs to continue and rename — not the owner's.
        theirs = await _ask(reader, ws)
        own = json.loads(theirs.text.splitlines()[0])["conversation_id"]
        assert (await _ask(reader, ws, own)).status_code == 200
        assert (
            await reader.patch(f"/api/conversations/{own}", json={"title": "mine"})
        ).status_code == 200
        assert (await _ask(owner, ws, own)).status_code == 403


async def test_an_event_stream_ends_when_its_token_is_revoked(site: Site) -> None:
    email = site.emails["other"]
    token, secret = await accounts.create_token(site.rt, email=email, name="streaming")
    async with _client(site.app, secret) as http:
        job = (await http.post("/api/jobs/ping", json={"steps": 600, "interval_s": 0.1})).json()
        stream = asyncio.ensure_future(http.get(f"/api/jobs/{job['id']}/events"))
        await asyncio.sleep(1.5)
        assert not stream.done()  # live while the token is good
        await accounts.revoke_token(site.rt, token.id)
        revoked_at = time.monotonic()
        response = await asyncio.wait_for(stream, timeout=15)
        assert time.monotonic() - revoked_at < 6
        assert response.status_code == 200 and "event:" in response.text
        assert (await http.get(f"/api/jobs/{job['id']}")).status_code == 401
    async with _client(site.app, site.tokens["other"]) as http:
        assert (await http.get(f"/api/jobs/{job['id']}")).json()["status"] in ("running", "queued")
        await http.post(f"/api/jobs/{job['id']}/cancel")


async def test_an_event_stream_ends_when_its_session_signs_out(site: Site) -> None:
    async with _client(site.app, address="10.5.0.1") as browser:
        assert (await _sign_in(browser, site.emails["other"], PASSWORD)).status_code == 200
        job = (await browser.post("/api/jobs/ping", json={"steps": 600, "interval_s": 0.1})).json()
        stream = asyncio.ensure_future(browser.get(f"/api/jobs/{job['id']}/events"))
        await asyncio.sleep(1.5)
        assert not stream.done()
        cookie = browser.cookies["marginalia_session"]
        await accounts.sign_out(site.rt, cookie)
        await asyncio.wait_for(stream, timeout=15)


async def test_upload_names_lose_their_path(site: Site) -> None:
    async with _client(site.app, site.tokens["owner"]) as owner:
        up = await owner.post(
            f"/api/workspaces/{site.workspace}/sources",
            files=[("files", ("../../../etc/rye.md", NOTE, "text/markdown"))],
        )
        assert up.status_code == 202, up.text
        assert [f["filename"] for f in up.json()["files"]] == ["rye.md"]
        job = up.json()["id"]
        for _ in range(600):
            if (await owner.get(f"/api/jobs/{job}")).json()["status"] not in ("queued", "running"):
                break
            await asyncio.sleep(0.1)
        sources = (await owner.get(f"/api/workspaces/{site.workspace}/sources")).json()
        source = next(s for s in sources if s["file_name"] == "rye.md")
        served = await owner.get(f"/api/sources/{source['id']}/file")
        disposition = served.headers["content-disposition"]
        assert (
            'filename="rye.md"' in disposition
            and ".." not in disposition
            and "/" not in disposition
        )


async def test_health_names_no_absolute_paths(site: Site) -> None:
    async with _client(site.app) as anonymous:
        health = await anonymous.get("/api/health")
    assert health.status_code == 200
    text = health.text
    assert str(site.rt.settings.home) not in text
    assert not re.search(r'"/[^"\s]*/', text), text
