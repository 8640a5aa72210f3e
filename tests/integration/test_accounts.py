"""Accounts mode (issue 18, item 1): every operation in the OpenAPI schema is walked
three ways — without credentials (401), with another user's token on this user's
resources (404), and as a reader of the workspace (writes 403) — plus sign-in with a
session cookie, token revocation, shared and filtered lists, and the CLI."""

from __future__ import annotations

import asyncio
import json
import subprocess
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from marginalia.api.app import create_app
from marginalia.config import AuthSettings, Settings
from marginalia.runtime import Runtime, open_runtime
from marginalia.usecases import accounts

NOTE = b"# Sourdough\n\nThe starter doubled in four hours at room temperature.\n\nIt smelled of apples.\n"
PASSWORD = "correct horse battery"
PUBLIC = {"/api/health", "/api/limits", "/api/auth/me", "/api/auth/session"}
READING_POSTS = {"/api/workspaces/{workspace_id}/ask", "/api/sources/{source_id}/ask"}


@dataclass
class World:
    app: FastAPI
    rt: Runtime
    tokens: dict[str, str]  # owner, stranger, reader
    ids: dict[str, str]  # path parameter -> a value naming the owner's resource


@pytest.fixture(scope="module")
async def world(settings: Settings) -> AsyncIterator[World]:
    rt = await open_runtime(settings.model_copy(update={"auth": AuthSettings(mode="accounts")}))
    app = create_app(rt.settings, runtime=rt)
    app.state.runtime = rt
    tag = uuid.uuid4().hex[:8]
    tokens, users = {}, {}
    for who in ("owner", "stranger", "reader"):
        user = await accounts.add_user(rt, email=f"{who}-{tag}@example.org", password=PASSWORD)
        users[who] = user
        tokens[who] = (await accounts.create_token(rt, email=user.email, name="test"))[1]
    async with _client(app, tokens["owner"]) as owner:
        ws = (await owner.post("/api/workspaces", json={"name": f"acct {tag}"})).json()["id"]
        up = await owner.post(
            f"/api/workspaces/{ws}/sources", files=[("files", ("n.md", NOTE, "text/markdown"))]
        )
        assert up.status_code == 202, up.text
        job = up.json()["id"]
        for _ in range(600):
            state = (await owner.get(f"/api/jobs/{job}")).json()
            if state["status"] in ("succeeded", "failed"):
                break
            await asyncio.sleep(0.1)
        assert state["status"] == "succeeded", state
        source = (await owner.get(f"/api/workspaces/{ws}/sources")).json()[0]["id"]
        asked = await owner.post(f"/api/workspaces/{ws}/ask", json={"question": "How fast?"})
        conversation = json.loads(asked.text.splitlines()[0])["conversation_id"]
        said = (await owner.get(f"/api/conversations/{conversation}")).json()["messages"]
        message = next(m["id"] for m in said if m["role"] == "assistant")
        highlight = await owner.post(
            f"/api/sources/{source}/highlights", json={"page": 1, "quote": "doubled in four hours"}
        )
        assert highlight.status_code == 201, highlight.text
        table = await owner.post(
            f"/api/workspaces/{ws}/tables", json={"columns": ["How fast?"], "fill": False}
        )
        assert table.status_code == 201, table.text
        shared = await owner.put(
            f"/api/workspaces/{ws}/members", json={"email": users["reader"].email, "role": "reader"}
        )
        assert shared.status_code == 200, shared.text
    ids = {
        "workspace_id": ws,
        "source_id": source,
        "conversation_id": conversation,
        "message_id": message,
        "highlight_id": highlight.json()["id"],
        "job_id": job,
        "user_id": str(users["reader"].id),
        "invitation_id": str(uuid.uuid4()),
        "chunk_index": "0",
        "step_id": str(uuid.uuid4()),
        "slug": "sourdough",
        "revision": "1",
        "table_id": table.json()["table"]["id"],
        "column_id": table.json()["table"]["columns"][0]["id"],
    }
    try:
        yield World(app, rt, tokens, ids)
    finally:
        await rt.close()


def _client(app: FastAPI, token: str | None = None) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    return httpx.AsyncClient(transport=transport, base_url="http://test", headers=headers)


def _operations(app: FastAPI) -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for path, operations in app.openapi()["paths"].items():
        for method, operation in operations.items():
            if path not in PUBLIC:
                out.append((method.upper(), path, operation))
    return out


async def _call(
    http: httpx.AsyncClient, method: str, path: str, operation: dict[str, Any], ids: dict[str, str]
) -> httpx.Response:
    params = [p["name"] for p in operation.get("parameters", []) if p["in"] == "path"]
    unknown = set(params) - set(ids)
    assert not unknown, f"{method} {path}: give the access test a value for {unknown}"
    url = path.format(**ids)
    body = operation.get("requestBody", {}).get("content", {})
    if "multipart/form-data" in body:
        return await http.request(method, url, files=[("files", ("x.md", b"# x", "text/markdown"))])
    if body:
        return await http.request(method, url, json={})
    return await http.request(method, url)


async def test_every_operation_needs_credentials(world: World) -> None:
    async with _client(world.app) as anonymous, _client(world.app, "mrg_not-a-token") as forged:
        for method, path, operation in _operations(world.app):
            for http in (anonymous, forged):
                r = await _call(http, method, path, operation, world.ids)
                assert r.status_code == 401, f"{method} {path}: {r.status_code} {r.text[:200]}"
                assert r.json()["error"] == "unauthorized"


async def test_another_users_resources_are_not_found(world: World) -> None:
    checked = 0
    async with _client(world.app, world.tokens["stranger"]) as stranger:
        for method, path, operation in _operations(world.app):
            if "{" not in path:
                continue
            r = await _call(stranger, method, path, operation, world.ids)
            assert r.status_code == 404, f"{method} {path}: {r.status_code} {r.text[:200]}"
            checked += 1
        assert checked > 40
        # Lists show only the stranger's own.
        assert (await stranger.get("/api/workspaces")).json() == []
        assert (await stranger.get("/api/jobs")).json() == []


async def test_a_reader_reads_and_asks_but_cannot_write(world: World) -> None:
    async with _client(world.app, world.tokens["reader"]) as reader:
        for method, path, operation in _operations(world.app):
            if "{" not in path:
                continue
            r = await _call(reader, method, path, operation, world.ids)
            if method == "GET" or path in READING_POSTS:
                assert r.status_code not in (401, 403), f"{method} {path}: {r.status_code}"
            else:
                assert r.status_code == 403, f"{method} {path}: {r.status_code} {r.text[:200]}"
        listed = [w["id"] for w in (await reader.get("/api/workspaces")).json()]
        assert listed == [world.ids["workspace_id"]]
    async with _client(world.app, world.tokens["owner"]) as owner:
        ws = world.ids["workspace_id"]
        detail = await owner.get(f"/api/workspaces/{ws}")
        assert detail.status_code == 200 and detail.json()["counts"]["sources"] == 1


async def test_sign_in_session_cookie_and_sign_out(world: World) -> None:
    owner_email = await accounts.current_user(world.rt, await _principal(world, "owner"))
    assert owner_email is not None
    async with _client(world.app) as browser:
        wrong = await browser.post(
            "/api/auth/session", json={"email": owner_email.email, "password": "wrong password"}
        )
        assert wrong.status_code == 401 and "marginalia_session" not in wrong.cookies
        nobody = await browser.post(
            "/api/auth/session", json={"email": "nobody@example.org", "password": PASSWORD}
        )
        assert nobody.status_code == 401
        assert (await browser.get("/api/auth/me")).json() == {"mode": "accounts", "user": None}
        ok = await browser.post(
            "/api/auth/session", json={"email": owner_email.email, "password": PASSWORD}
        )
        assert ok.status_code == 200, ok.text
        cookie = ok.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie
        me = (await browser.get("/api/auth/me")).json()
        assert me["user"]["email"] == owner_email.email
        assert [w["id"] for w in (await browser.get("/api/workspaces")).json()] == [
            world.ids["workspace_id"]
        ]
        assert (await browser.delete("/api/auth/session")).status_code == 204
        browser.cookies.clear()
        browser.cookies.set("marginalia_session", ok.cookies["marginalia_session"])
        assert (await browser.get("/api/workspaces")).status_code == 401  # the session ended


async def test_a_revoked_token_stops_working(world: World) -> None:
    email = await accounts.current_user(world.rt, await _principal(world, "stranger"))
    assert email is not None
    token, secret = await accounts.create_token(world.rt, email=email.email, name="short-lived")
    async with _client(world.app, secret) as http:
        assert (await http.get("/api/workspaces")).status_code == 200
        used = {
            t.id: t.last_used_at for t in await accounts.list_tokens(world.rt, email=email.email)
        }
        assert used[token.id] is not None  # shown by `marginalia user token list`
        await accounts.revoke_token(world.rt, token.id)
        assert (await http.get("/api/workspaces")).status_code == 401


async def test_a_stranger_cannot_take_a_workspace_by_sharing_it(world: World) -> None:
    email = await accounts.current_user(world.rt, await _principal(world, "stranger"))
    assert email is not None
    ws = world.ids["workspace_id"]
    async with _client(world.app, world.tokens["stranger"]) as stranger:
        r = await stranger.put(
            f"/api/workspaces/{ws}/members", json={"email": email.email, "role": "owner"}
        )
        assert r.status_code == 404
    async with _client(world.app, world.tokens["reader"]) as reader:
        r = await reader.put(
            f"/api/workspaces/{ws}/members", json={"email": email.email, "role": "owner"}
        )
        assert r.status_code == 403
    members = [m.user.email for m in await accounts.members(world.rt, uuid.UUID(ws))]
    assert email.email not in members


async def _principal(world: World, who: str) -> accounts.Principal:
    return await accounts.authenticate(world.rt, bearer=world.tokens[who], cookie=None)


def test_cli_adds_users_and_tokens_and_serve_refuses_open_binds_in_local_mode(
    subprocess_env: dict[str, str],
) -> None:
    email = f"cli-{uuid.uuid4().hex[:8]}@example.org"
    added = subprocess.run(
        ["marginalia", "user", "add", email, "--password-stdin"],
        input=PASSWORD + "\n",
        env=subprocess_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert added.returncode == 0, added.stderr
    again = subprocess.run(
        ["marginalia", "user", "add", email, "--password-stdin"],
        input=PASSWORD + "\n",
        env=subprocess_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 1 and "exists already" in again.stderr
    made = subprocess.run(
        ["marginalia", "user", "token", "create", email, "--name", "agent"],
        env=subprocess_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip().startswith("mrg_") and len(made.stdout.strip()) > 40
    served = subprocess.run(
        ["marginalia", "serve", "--host", "0.0.0.0", "--port", "1"],
        env=subprocess_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert served.returncode == 2 and "needs accounts" in served.stdout + served.stderr


async def test_sharing_answers_the_same_whether_or_not_the_email_has_an_account(
    world: World,
) -> None:
    """Issue 34: an unknown email was a 422 naming it, a known one returned the user's id
    (account enumeration). Now both are a pending invitation, answered alike; the invitee's
    first sign-in (or API use) makes it a membership, which the owner then sees listed."""
    ws = world.ids["workspace_id"]
    tag = uuid.uuid4().hex[:8]
    known = await accounts.add_user(world.rt, email=f"known-{tag}@example.org", password=PASSWORD)
    answers = []
    async with _client(world.app, world.tokens["owner"]) as owner:
        for email in (known.email, f"nobody-{tag}@example.org"):
            r = await owner.put(
                f"/api/workspaces/{ws}/members", json={"email": email, "role": "reader"}
            )
            assert r.status_code == 200, r.text
            body = r.json()
            assert body["status"] == "pending" and body["email"] == email
            answers.append({k: v for k, v in body.items() if k not in ("email", "invitation_id")})
        assert answers[0] == answers[1]
        listed = (await owner.get(f"/api/workspaces/{ws}/members")).json()
        pending = {m["email"] for m in listed if m["status"] == "pending"}
        assert {known.email, f"nobody-{tag}@example.org"} <= pending
        assert (await owner.get(f"/api/workspaces/{ws}")).status_code == 200
    async with _client(world.app) as browser:
        signed = await browser.post(
            "/api/auth/session", json={"email": known.email, "password": PASSWORD}
        )
        assert signed.status_code == 200, signed.text
        assert [w["id"] for w in (await browser.get("/api/workspaces")).json()] == [ws]
    async with _client(world.app, world.tokens["owner"]) as owner:
        listed = (await owner.get(f"/api/workspaces/{ws}/members")).json()
        member = next(m for m in listed if m["email"] == known.email)
        assert member["status"] == "member" and member["user"]["id"] == str(known.id)
        invitation = next(m for m in listed if m["status"] == "pending")
        gone = await owner.delete(f"/api/workspaces/{ws}/invitations/{invitation['invitation_id']}")
        assert gone.status_code == 204
        again = (await owner.get(f"/api/workspaces/{ws}/members")).json()
        assert invitation["email"] not in {m["email"] for m in again}
        await owner.delete(f"/api/workspaces/{ws}/members/{known.id}")
