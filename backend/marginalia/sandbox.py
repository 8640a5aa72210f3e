"""Untrusted files are parsed in a child process with a memory, CPU and wall-clock budget,
so a file that runs out of budget ends that child, never the server (issue 34).

A *zygote* — ``python -m marginalia.sandbox``, started on first use, one per process —
imports the parsers once (pypdfium2, pikepdf, trafilatura, bibtexparser: about 2 s),
warms them with a small parse of each kind (a module's ``warm_up()``), then forks one
child per parse. The parent hands the zygote one end
of a fresh socket pair (``SCM_RIGHTS``); the child:

* limits its address space (``RLIMIT_AS``: what it had at birth + ``memory_mb``), CPU time
  (``RLIMIT_CPU``), file writes (``RLIMIT_FSIZE`` 0) and core dumps (none), and sees none
  of the server's environment but the import path and locale (no API keys, no database
  URL);
* sends its pid, reads the task's arguments and payload, runs the task, reports each step
  (e.g. each page) as it goes and sends the result as JSON — never pickle: the parent
  does not unpickle what a parser that may have been subverted wrote.

The zygote reaps the child and sends its exit status on the same socket. The parent waits
for each message with a deadline (``step_s`` since the last step, ``wall_s`` overall),
kills the child (by the pid it sent) when one passes, and turns every way a child can fail
— a MemoryError, a crash (PDFium aborts when an allocation fails), its CPU limit's
signal, a result larger than ``max_output`` — into :class:`BudgetExceeded` saying what ran
out. A task's own refusal (say, a damaged PDF) comes back as :class:`TaskRefused`. At most
``slots`` children run at once; callers run in threads. The zygote exits when its parent
does (its control socket closes), and with it any child still running.

(multiprocessing's forkserver would do the forking, but every child it starts re-imports
the parent's ``__main__`` — ``marginalia/__main__.py`` runs the CLI when imported.)
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import resource
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib import import_module
from multiprocessing.connection import Connection
from typing import Any, Literal

log = logging.getLogger(__name__)

#: The modules the zygote imports once, so a child starts with them loaded.
PRELOAD = ("marginalia.ingest.untrusted", "marginalia.formats.untrusted")
_MB = 1024 * 1024

Report = Callable[[str], None]
Task = Callable[[bytes, dict[str, Any], Report], Any]


@dataclass(frozen=True)
class Budget:
    memory_mb: int  # address space a child may add to what it was born with
    cpu_s: float  # CPU seconds
    wall_s: float  # wall-clock seconds, start to result
    step_s: float  # longest wait between two of the task's step reports
    max_output: int = 256 * _MB  # largest result accepted


Exhausted = Literal["memory", "time", "step", "output", "crash"]


class BudgetExceeded(Exception):
    """The child ran out of a budget (or died); ``step`` is the last step it reported."""

    def __init__(self, what: Exhausted, detail: str, step: str | None) -> None:
        super().__init__(detail)
        self.what = what
        self.detail = detail
        self.step = step


class TaskRefused(Exception):
    """The task refused its input with a user-facing reason (``code``, ``message``): a
    task raises it in the child, :func:`run` raises it again in the parent."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# ------------------------------------------------------------------------------ the parent


# What a parser needs of the environment; nothing else (API keys, database URLs) reaches it.
_ENVIRONMENT = ("PATH", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "HOME", "TMPDIR", "LANG")


class _Zygote:
    def __init__(self) -> None:
        self.control, remote = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        env = {k: v for k, v in os.environ.items() if k in _ENVIRONMENT or k.startswith("LC_")}
        # The parent's import path (an editable install, a test runner's root) as it is.
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "marginalia.sandbox", str(remote.fileno())],
            pass_fds=[remote.fileno()],
            stdin=subprocess.DEVNULL,
            env=env,
        )
        remote.close()

    def fork(self) -> Connection:
        """A connection to a new child (its first message is its pid)."""
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            socket.send_fds(self.control, [b"f"], [theirs.fileno()])
        finally:
            theirs.close()
        return Connection(mine.detach())

    def alive(self) -> bool:
        return self.process.poll() is None


_zygote_lock = threading.Lock()
_zygote: _Zygote | None = None
_slots_lock = threading.Lock()
_slots: tuple[int, threading.BoundedSemaphore] | None = None


def _fork() -> Connection:
    global _zygote
    with _zygote_lock:
        for _attempt in range(2):
            if _zygote is None or not _zygote.alive():
                _zygote = _Zygote()
            try:
                return _zygote.fork()
            except OSError:
                _zygote = None  # it died between the check and the send: start another
        raise BudgetExceeded("crash", "the parse sandbox could not be started", None)


def _semaphore(slots: int) -> threading.BoundedSemaphore:
    global _slots
    with _slots_lock:
        if _slots is None or _slots[0] != slots:
            _slots = (slots, threading.BoundedSemaphore(max(1, slots)))
        return _slots[1]


def run(task: str, payload: bytes, args: dict[str, Any], budget: Budget, *, slots: int) -> Any:
    """Run ``task`` (``"module:function"`` of a preloaded module) on ``payload`` in a child
    under ``budget``; its JSON result. Blocking: call it from a thread."""
    with _semaphore(slots):
        conn = _fork()
        try:
            return _converse(conn, task, payload, args, budget)
        finally:
            conn.close()


def _converse(
    conn: Connection, task: str, payload: bytes, args: dict[str, Any], budget: Budget
) -> Any:
    started = time.monotonic()
    pid: int | None = None
    step: str | None = None
    try:
        if not conn.poll(budget.step_s + 30):  # the zygote may still be importing
            raise BudgetExceeded("crash", "the parse sandbox did not start a child", None)
        pid = int(json.loads(conn.recv_bytes(1024))["pid"])
        conn.send_bytes(json.dumps({"task": task, "args": args, "budget": asdict(budget)}).encode())
        conn.send_bytes(payload)
        while True:
            left = budget.wall_s - (time.monotonic() - started)
            wait = min(budget.step_s, left)
            if wait <= 0 or not conn.poll(wait):
                raise _timed_out(budget, step, overall=wait >= left)
            message = json.loads(conn.recv_bytes(budget.max_output))
            kind = message.get("t")
            if kind == "step":
                step = str(message.get("step"))
            elif kind == "ok":
                pid = None  # it is done; the zygote reaps it
                return message.get("value")
            elif kind == "refused":
                pid = None
                raise TaskRefused(str(message.get("code")), str(message.get("message")))
            elif kind == "memory":
                raise BudgetExceeded("memory", _memory_detail(budget), step)
            elif kind == "exit":
                pid = None
                raise _died(int(message.get("status", 0)), budget, step)
            else:
                raise BudgetExceeded("crash", str(message.get("message") or kind), step)
    except OSError as exc:  # the result is longer than max_output, or the pipe broke
        if "too long" in str(exc).lower() or "bad message length" in str(exc).lower():
            raise BudgetExceeded(
                "output", f"the parse produced more than {budget.max_output // _MB} MB", step
            ) from None
        raise BudgetExceeded("crash", f"the parse sandbox failed: {exc}", step) from None
    except EOFError:
        raise BudgetExceeded("crash", "the parse child ended without a word", step) from None
    finally:
        if pid is not None:  # our child (through our zygote): it overran
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _timed_out(budget: Budget, step: str | None, *, overall: bool) -> BudgetExceeded:
    if overall:
        return BudgetExceeded("time", f"the parse took longer than {budget.wall_s:g} s", step)
    where = f" after {step}" if step else ""
    return BudgetExceeded(
        "step", f"one step of the parse{where} took longer than {budget.step_s:g} s", step
    )


def _memory_detail(budget: Budget) -> str:
    return f"the parse needed more than {budget.memory_mb} MB of memory"


def _died(status: int, budget: Budget, step: str | None) -> BudgetExceeded:
    if status < 0 and -status in (signal.SIGXCPU, signal.SIGKILL):
        return BudgetExceeded(
            "time", f"the parse used more than {budget.cpu_s:g} s of processor time", step
        )
    # PDFium and qpdf abort (or fault) when an allocation fails under the address-space
    # limit: nearly always that, so say so.
    log.warning("a parse child ended with status %s at step %s", status, step)
    return BudgetExceeded("memory", _memory_detail(budget) + f" (it ended: status {status})", step)


# ------------------------------------------------------------------------------ the zygote


def zygote_main(control_fd: int) -> None:
    """Import the parsers, then fork a child for each connection the parent sends; reap
    children and tell each parent connection its child's exit status."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server's Ctrl-C is for the server
    for name in PRELOAD:
        module = import_module(name)
        warm_up = getattr(module, "warm_up", None)
        if warm_up is not None:
            with contextlib.suppress(Exception):  # a warm-up is an optimisation only
                warm_up()
    control = socket.socket(fileno=control_fd)
    children: dict[int, socket.socket] = {}
    while True:
        ready, _, _ = select.select([control], [], [], 0.5 if children else None)
        _reap(children)
        if not ready:
            continue
        try:
            message, fds, _flags, _addr = socket.recv_fds(control, 1, 1)
        except OSError:
            message, fds = b"", []
        if not message:
            break  # the parent is gone
        if not fds:
            continue
        conn = socket.socket(fileno=fds[0])
        pid = os.fork()
        if pid == 0:
            control.close()
            for other in children.values():
                other.close()
            _child_main(Connection(conn.detach()))
            os._exit(0)
        children[pid] = conn
    for pid, conn in children.items():
        conn.close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _reap(children: dict[int, socket.socket]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = children.pop(pid, None)
        if conn is None:
            continue
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        try:
            _send_on(conn, {"t": "exit", "status": code})
        finally:
            conn.close()


def _send_on(sock: socket.socket, message: dict[str, Any]) -> None:
    data = json.dumps(message).encode()
    with contextlib.suppress(OSError):  # the parent may have given up on this child
        sock.sendall(len(data).to_bytes(4, "big") + data)  # Connection's framing


# ------------------------------------------------------------------------------ the child


def _address_space() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _limit(budget: dict[str, Any]) -> None:
    base = _address_space()
    if base:
        ceiling = base + int(budget["memory_mb"]) * _MB
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))
    cpu = max(1, int(float(budget["cpu_s"]) + 0.999))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def _send(conn: Connection, message: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):  # the parent may have given up (a deadline passed)
        conn.send_bytes(json.dumps(message).encode())


def _child_main(conn: Connection) -> None:
    try:
        _send(conn, {"pid": os.getpid()})
        request = json.loads(conn.recv_bytes())
        _limit(request["budget"])
        payload = conn.recv_bytes()
        module, _, name = str(request["task"]).partition(":")
        if module not in PRELOAD:
            raise ValueError(f"{module} is not a sandbox task module")
        function: Task = getattr(import_module(module), name)

        def report(step: str) -> None:
            _send(conn, {"t": "step", "step": step})

        value = function(payload, request["args"], report)
        del payload
        _send(conn, {"t": "ok", "value": value})
    except MemoryError:
        _send(conn, {"t": "memory"})
    except TaskRefused as refusal:
        _send(conn, {"t": "refused", "code": refusal.code, "message": refusal.message})
    except BaseException as exc:  # a parser bug: reported as a crash, never a traceback
        _send(conn, {"t": "crash", "message": f"{type(exc).__name__}: {exc}"[:500]})
    finally:
        conn.close()


if __name__ == "__main__":
    # Run the module's own copy (not ``__main__``'s), so the tasks' TaskRefused is this one.
    from marginalia.sandbox import zygote_main as _zygote_main

    _zygote_main(int(sys.argv[1]))
