"""Job kinds and the functions that run them — the same functions in-process or on arq."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from marginalia.jobs.context import JobContext

JobFunction = Callable[["JobContext"], Awaitable[dict[str, Any]]]

_REGISTRY: dict[str, JobFunction] = {}


def job(kind: str) -> Callable[[JobFunction], JobFunction]:
    def register(fn: JobFunction) -> JobFunction:
        _REGISTRY[kind] = fn
        return fn

    return register


def get_job_function(kind: str) -> JobFunction:
    load_job_modules()
    try:
        return _REGISTRY[kind]
    except KeyError:
        raise KeyError(
            f"unknown job kind {kind!r}; known: {', '.join(sorted(_REGISTRY))}"
        ) from None


def known_kinds() -> list[str]:
    load_job_modules()
    return sorted(_REGISTRY)


def load_job_modules() -> None:
    """Import the modules that define jobs so their decorators run."""
    import importlib

    for module in _JOB_MODULES:
        importlib.import_module(module)


# Each module that defines jobs is listed here: the flows' jobs live with their use case.
_JOB_MODULES = [
    "marginalia.jobs.diagnostics",
    "marginalia.embed.reembed",
    "marginalia.usecases.sources",
    "marginalia.usecases.knowledge",
    "marginalia.usecases.paths",
    "marginalia.usecases.research",
    "marginalia.usecases.tables",
]
