"""Fuzz the HTTP API with schemathesis against a live ``marginalia serve`` (issue 18, item 6).

Usage: uv run python scripts/fuzz_api.py [--mode local|accounts] [--max-examples N]
       [--max-time SECONDS] [--keep]

It starts ``marginalia serve`` in a throwaway home (its own embedded PostgreSQL), seeds
a workspace with two ingested sources (each ingest updates the knowledge layer), a
conversation, a highlight and a reading path, then runs ``schemathesis run --checks
all`` (plus scripts/fuzz_hooks.py's check of the NDJSON ask streams) against
``/openapi.json`` with the seeded ids as path parameters (the hooks swap a fresh resource
in for each DELETE of a seeded one, so the seed survives and deletes still run on real
data). The offline engine writes no wiki page for so small a seed: the wiki/{slug}
operations see only 404s.
Exit status 0 only when there was no 5xx and no check failure. In accounts mode a user
and an API token are made with ``marginalia user add`` / ``marginalia user token
create`` and every request carries ``Authorization: Bearer <token>``.

All traffic stays on 127.0.0.1: external sources point at a closed local port and the
server's HTTP proxy is a closed local port too.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
HOOKS = Path(__file__).resolve().with_name("fuzz_hooks.py")
DEAD = "http://127.0.0.1:9"  # the discard port: nothing listens, connections fail at once

DOCS = {
    "thrombosis.md": "# Thrombosis prophylaxis after trauma\n\n"
    + "Low molecular weight heparin reduces deep venous thrombosis after major trauma. " * 12
    + "\n\n## Methods\n\nA randomised trial of 344 patients compared heparin regimens.\n",
    "sleep.txt": "Sleep and memory consolidation\n\n"
    + "Slow-wave sleep supports the consolidation of declarative memory in adults. " * 12
    + "\n\nA night of deprivation impaired recall of word pairs the next morning.\n",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env(home: Path, mode: str) -> dict[str, str]:
    env = dict(os.environ)
    for var in ("DATABASE_URL", "MARGINALIA_DATABASE_URL", "REDIS_URL", "MARGINALIA_REDIS_URL"):
        env.pop(var, None)
    env.update(
        MARGINALIA_HOME=str(home),
        MARGINALIA_LLM__PROVIDER="offline",
        MARGINALIA_LOG_LEVEL="WARNING",
        MARGINALIA_SOURCES__ARXIV_BASE_URL=f"{DEAD}/arxiv",
        MARGINALIA_SOURCES__OPENALEX_BASE_URL=f"{DEAD}/openalex",
        MARGINALIA_SOURCES__BRAVE_BASE_URL=f"{DEAD}/brave",
        MARGINALIA_SOURCES__MAX_RETRIES="0",
        MARGINALIA_SOURCES__MIN_INTERVAL_S="0",
        HTTP_PROXY=DEAD,
        HTTPS_PROXY=DEAD,
        ALL_PROXY=DEAD,
        NO_PROXY="127.0.0.1,localhost",
        PYTHONPATH=os.pathsep.join([str(ROOT / "backend"), env.get("PYTHONPATH", "")]),
    )
    if mode == "accounts":
        env["MARGINALIA_AUTH__MODE"] = "accounts"
    return env


def marginalia(*args: str) -> list[str]:
    return [sys.executable, "-m", "marginalia", *args]


def wait_healthy(base: str, proc: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise TimeoutError(f"server not healthy after {timeout_s}s:\n{log.read_text()[-3000:]}")


def make_token(env: dict[str, str]) -> str:
    """An accounts-mode user and API token, through the CLI an operator would use."""
    email = f"fuzz-{uuid.uuid4().hex[:8]}@example.org"
    password = uuid.uuid4().hex
    subprocess.run(
        marginalia("user", "add", email, "--password-stdin"),
        input=password + "\n",
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = subprocess.run(
        marginalia("user", "token", "create", email, "--name", "fuzz"),
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout.strip()
    return out.splitlines()[-1].strip()


def wait_job(http: httpx.Client, job_id: str, timeout_s: float = 180) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job: dict[str, Any] = http.get(f"/api/jobs/{job_id}").raise_for_status().json()
        if job["status"] in ("succeeded", "failed", "cancelled", "interrupted"):
            return job
        time.sleep(0.3)
    raise TimeoutError(f"job {job_id} still running after {timeout_s}s")


def upload(http: httpx.Client, workspace_id: str, name: str, text: str) -> dict[str, Any]:
    files = [("files", (name, text.encode(), "text/plain"))]
    response = http.post(f"/api/workspaces/{workspace_id}/sources", files=files)
    response.raise_for_status()
    job = wait_job(http, response.json()["id"])
    if job["status"] != "succeeded":
        raise RuntimeError(f"seed ingest failed: {job}")
    return job


def ask(http: httpx.Client, workspace_id: str, question: str) -> str:
    """A conversation, made the way the web app makes one: a streamed ask."""
    conversation = ""
    url = f"/api/workspaces/{workspace_id}/ask"
    answer = http.post(url, json={"question": question})
    answer.raise_for_status()
    # NDJSON lines end at "\n" only (iter_lines() would also cut at U+2028 and the like).
    for line in answer.content.decode("utf-8").split("\n"):
        if line.strip():
            conversation = json.loads(line).get("conversation_id") or conversation
    if not conversation:
        raise RuntimeError("the ask stream named no conversation")
    return conversation


def seed(http: httpx.Client) -> dict[str, Any]:
    """The data every path parameter points at."""
    ws = http.post("/api/workspaces", json={"name": "Fuzz seed", "description": "seeded"})
    workspace_id = ws.raise_for_status().json()["id"]
    job_id = ""
    for name, text in DOCS.items():
        job_id = upload(http, workspace_id, name, text)["id"]
    sources = http.get(f"/api/workspaces/{workspace_id}/sources").raise_for_status().json()
    source_id = sources[0]["id"]
    pages = http.get(f"/api/sources/{source_id}/pages").raise_for_status().json()
    words = pages[0]["text"].split()
    quote = " ".join(words[3:9])
    highlight = http.post(
        f"/api/sources/{source_id}/highlights",
        json={"page": pages[0]["page_number"], "quote": quote, "note": "seeded note"},
    )
    highlight_id = highlight.raise_for_status().json()["id"]
    conversation_id = ask(http, workspace_id, "What reduces deep venous thrombosis after trauma?")
    wiki = http.get(f"/api/workspaces/{workspace_id}/wiki")
    slug = _first(wiki.json(), "slug") if wiki.status_code == 200 else None
    path = http.post(f"/api/workspaces/{workspace_id}/path")
    step_id = _first(path.json(), "id", under="steps") if path.status_code < 300 else None
    return {
        "workspace_id": workspace_id,
        "source_id": source_id,
        "highlight_id": highlight_id,
        "conversation_id": conversation_id,
        "job_id": job_id,
        "slug": slug,
        "step_id": step_id,
    }


def _first(data: Any, key: str, under: str | None = None) -> Any:
    """The first ``key`` in a list (or ``data[under]``, or a dict's list values)."""
    if isinstance(data, dict):
        if under is not None:
            return _first(data.get(under) or [], key)
        for value in data.values():
            if isinstance(value, list) and value:
                return _first(value, key)
        return None
    if isinstance(data, list) and data and isinstance(data[0], dict):
        return data[0].get(key)
    return None


#: Operations whose schema-valid requests can still be refused for what the schema cannot
#: say, with a 4xx naming the reason (positive_data_acceptance expects it for these only):
#: a highlight's quote must be text of its page; a graph page's ``cursor`` is opaque, one
#: the server never issued is refused; an upload's bytes must be a PDF, HTML, Markdown or
#: text document (415 otherwise: the type is sniffed from the bytes, not declared); a
#: workspace always keeps an owner (409); signing in is refused with 429 and Retry-After
#: once an address has tried too often (issue 34's back-off: the fuzzer tries hundreds of
#: times). (One set for all: the stateful phase was seen applying one operation's set to
#: another in a scenario.)
SEMANTIC = [
    ("POST", "/api/sources/{source_id}/highlights"),
    ("GET", "/api/workspaces/{workspace_id}/graph"),
    ("POST", "/api/workspaces/{workspace_id}/sources"),
    ("PUT", "/api/workspaces/{workspace_id}/members"),
    ("POST", "/api/auth/session"),
    # a column question needs a letter or digit (str.isalnum), which no ECMA pattern states
    ("POST", "/api/workspaces/{workspace_id}/tables"),
    ("POST", "/api/workspaces/{workspace_id}/tables/{table_id}/columns"),
    ("PATCH", "/api/workspaces/{workspace_id}/tables/{table_id}/columns/{column_id}"),
]
SEMANTIC_STATUSES = ["2xx", "401", "403", "404", "409", "415", "422", "429"]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _unauthenticated_body(base: str, path: str, declared: int) -> int:
    """Send headers declaring ``declared`` bytes and 1 MiB of them; the status."""
    host, port = base.removeprefix("http://").split(":")
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Type: application/octet-stream\r\nContent-Length: {declared}\r\n\r\n"
    )
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        sock.sendall(head.encode())
        with contextlib.suppress(OSError):  # the server may answer and close unread
            sock.sendall(b"\0" * (1024 * 1024))
        answer = sock.recv(4096)
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


def hostile_inputs(
    http: httpx.Client, base: str, ids: dict[str, Any], pid: int, mode: str
) -> list[str]:
    """Issue 34's bombs: each a quick 4xx, the server's memory kept (problems listed)."""
    sys.path.insert(0, str(ROOT))
    from tests.support.bombs import bibtex_macro_bomb, pdf_bomb

    workspace = ids["workspace_id"]
    problems: list[str] = []
    before = rss_mb(pid)
    sent: list[tuple[str, int, float]] = []
    started = time.monotonic()
    r = http.post(
        f"/api/workspaces/{workspace}/bibtex",
        content=bibtex_macro_bomb().encode(),
        headers={"Content-Type": "application/x-bibtex"},
    )
    sent.append(("BibTeX macro bomb", r.status_code, time.monotonic() - started))
    files = [("files", ("bomb.pdf", pdf_bomb(), "application/pdf"))]  # made first: ~4 s
    started = time.monotonic()
    r = http.post(f"/api/workspaces/{workspace}/sources", files=files)
    sent.append(("PDF bomb upload", r.status_code, time.monotonic() - started))
    if mode == "accounts":
        started = time.monotonic()
        status = _unauthenticated_body(base, f"/api/workspaces/{workspace}/sources", 300 * 2**20)
        sent.append(("unauthenticated 300 MB body", status, time.monotonic() - started))
    rise = rss_mb(pid) - before
    for label, status, seconds in sent:
        print(f"hostile input: {label}: {status} in {seconds:.1f}s", flush=True)
        if not 400 <= status < 500 or seconds > 60:
            problems.append(f"{label}: {status} after {seconds:.1f}s (expected a quick 4xx)")
    print(f"hostile inputs: server RSS {before:.0f} MB -> +{rise:.0f} MB", flush=True)
    if rise > 200:
        problems.append(f"the server's RSS rose {rise:.0f} MB on the hostile inputs")
    return problems


def write_config(path: Path, ids: dict[str, Any]) -> None:
    params = {name: value for name, value in ids.items() if value}
    lines = ["[parameters]"]
    lines += [f'"path.{name}" = {json.dumps(str(value))}' for name, value in params.items()]
    expected = SEMANTIC_STATUSES
    for method, route in SEMANTIC:
        lines += [
            "",
            "[[operations]]",
            f'include-method = "{method}"',
            f'include-path = "{route}"',
            f"checks.positive_data_acceptance.expected-statuses = {json.dumps(expected)}",
        ]
    # An upload's parts are bytes with a file name: a ``files`` item "mutated" to a number
    # or an object is sent as its text, which is a valid (tiny text) file, so the
    # schema-level negative cases of this operation are not negative on the wire (seen
    # in CI: ``-1385227`` ingested as text). Every other check still runs on it.
    lines += [
        "",
        "[[operations]]",
        'include-method = "POST"',
        'include-path = "/api/workspaces/{workspace_id}/sources"',
        "checks.negative_data_rejection.enabled = false",
    ]
    path.write_text("\n".join(lines) + "\n")


def run_schemathesis(
    base: str, config: Path, headers: list[str], args: argparse.Namespace, report: Path
) -> int:
    cmd = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "--config-file",
        str(config),
        "run",
        f"{base}/openapi.json",
        "--checks",
        "all",
        "--max-examples",
        str(args.max_examples),
        "--max-time",
        str(args.max_time),
        "--request-timeout",
        "30",
        "--workers",
        str(args.workers),
        "--seed",
        str(args.seed),
        "--generation-database",
        "none",
        "--report",
        "junit,ndjson",
        "--report-dir",
        str(report),
        "--no-color",
    ]
    for header in headers:
        cmd += ["-H", header]
    print("$", " ".join(cmd), flush=True)
    # Run in the throwaway home: schemathesis keeps a cache in the .schemathesis/ of its cwd.
    env = dict(os.environ, SCHEMATHESIS_HOOKS=str(HOOKS))
    return subprocess.run(cmd, cwd=config.parent, env=env).returncode


def count_operations(base: str) -> int:
    spec = httpx.get(f"{base}/openapi.json", timeout=30).json()
    return sum(len(ops) for ops in spec["paths"].values())


_ACCESS = re.compile(r'^INFO: +\S+ - "[^"]*" (\d{3})\b')


def status_counts(text: str) -> dict[int, int]:
    """Responses by status, from uvicorn's access log (what the server answered)."""
    counts: dict[int, int] = {}
    for line in text.splitlines():
        match = _ACCESS.match(line)
        if match:
            counts[int(match.group(1))] = counts.get(int(match.group(1)), 0) + 1
    return counts


def server_errors(text: str) -> list[str]:
    """The server log's tracebacks, each with the line before it (what failed)."""
    lines = [line for line in text.splitlines() if not line.startswith("INFO:")]
    found: list[str] = []
    for i, line in enumerate(lines):
        if line.startswith("Traceback"):
            end = i + 1
            while end < len(lines) and (lines[end].startswith((" ", "\t")) or not lines[end]):
                end += 1
            block = lines[max(i - 1, 0) : end + 1]
            # A job that failed with one of our user-facing errors (say, research with
            # nothing to research) is the job's result, shown to the user, not a bug.
            user_facing = block[-1].startswith("marginalia.errors.") or (
                len(block) > 1 and block[-2].startswith("marginalia.errors.")
            )
            if not (block[0].startswith("ERROR marginalia.jobs.runner") and user_facing):
                found.append("\n".join(block[-40:]))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=["local", "accounts"], default="local")
    parser.add_argument("--max-examples", type=int, default=12)
    parser.add_argument("--max-time", type=int, default=70, help="schemathesis's budget, s")
    # One worker: on CPython 3.11.7 two threads inside ast.parse (Hypothesis describes its
    # lambdas that way) can race on the interpreter's shared AST recursion counter and raise
    # "SystemError: AST constructor recursion depth mismatch" (cpython gh-106905), which
    # schemathesis reports as a runtime error of the run, not of the API.
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--report-dir", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the throwaway home")
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix=f"marginalia-fuzz-{args.mode}-"))
    report = args.report_dir or home / "report"
    env = server_env(home, args.mode)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = home / "serve.log"
    started = time.monotonic()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            marginalia("serve", "--port", str(port)),
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_healthy(base, proc, log, timeout_s=180)
        print(f"server up in {time.monotonic() - started:.1f}s", flush=True)
        headers: dict[str, str] = {}
        if args.mode == "accounts":
            headers["Authorization"] = f"Bearer {make_token(env)}"
        with httpx.Client(base_url=base, headers=headers, timeout=120) as http:
            ids = seed(http)
        print(f"seeded in {time.monotonic() - started:.1f}s: {json.dumps(ids)}", flush=True)
        config = home / "schemathesis.toml"
        write_config(config, ids)
        seed_file = home / "seed.json"
        seed_file.write_text(json.dumps({"base": base, "headers": headers, "ids": ids}))
        os.environ["MARGINALIA_FUZZ_SEED"] = str(seed_file)
        header_args = [f"{k}: {v}" for k, v in headers.items()]
        seeded_at = log.stat().st_size
        with httpx.Client(base_url=base, headers=headers, timeout=300) as http:
            hostile = hostile_inputs(http, base, ids, proc.pid, args.mode)
        operations = count_operations(base)
        code = run_schemathesis(base, config, header_args, args, report)
        with log.open("rb") as text:
            text.seek(seeded_at)
            statuses = status_counts(text.read().decode(errors="replace"))
        server_5xx = sum(n for status, n in statuses.items() if status >= 500)
        print(
            f"fuzz summary ({args.mode}): operations {operations}, requests "
            f"{sum(statuses.values())}, 5xx {server_5xx}, schemathesis exit {code}, "
            f"statuses {dict(sorted(statuses.items()))}",
            flush=True,
        )
        if server_5xx:
            code = code or 1
        if hostile:
            print("hostile inputs failed:", *hostile, sep="\n  ", flush=True)
            code = code or 1
        if proc.poll() is not None:
            print(f"the server died during the run:\n{log.read_text()[-3000:]}", flush=True)
            code = code or 1
        tracebacks = server_errors(log.read_text())
        if tracebacks:
            print(f"the server logged {len(tracebacks)} errors:", *tracebacks, sep="\n\n")
            code = code or 1
        print(f"fuzz ({args.mode}) finished in {time.monotonic() - started:.0f}s, exit {code}")
        return code
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        if not args.keep:
            shutil.rmtree(home, ignore_errors=True)
        else:
            print(f"home kept at {home}")


if __name__ == "__main__":
    raise SystemExit(main())
