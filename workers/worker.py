"""arq entry point: `arq workers.worker.WorkerSettings` (or `marginalia worker`)."""

from marginalia.config import get_settings
from marginalia.jobs.worker import worker_settings


class WorkerSettings:
    locals().update(worker_settings(get_settings()))
