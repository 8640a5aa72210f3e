"""The application layer: one module per user-level flow. The API's routers and the CLI's
commands call only these; each flow owns its steps end to end and calls the stages with
the process's :class:`marginalia.runtime.Runtime` (which satisfies every stage's narrow
context protocol).

* :mod:`.ask` — prepare → start the turn → retrieve → answer → save, one async generator
  of typed events (the API's NDJSON stream, ``marginalia ask``, the QA eval);
* :mod:`.sources` — upload/ingest → knowledge update → ready (the ``ingest`` job); delete →
  knowledge removal → the file removed when no other source uses it; reads;
* :mod:`.workspaces` — create, read, update (quality re-scored), delete (files too);
* :mod:`.knowledge` — rebuild (a job), the graph, concepts, claims and wiki reads;
* :mod:`.paths` — learning paths;
* :mod:`.research` — research runs and BibTeX import/export;
* :mod:`.conversations` — list, read, delete;
* :mod:`.jobs` — list, follow, resume, retry, cancel, the diagnostic ticker;
* :mod:`.health` — what ``GET /api/health`` and ``marginalia db status`` report;
* :mod:`.embedding`, :mod:`.database` — re-embedding; migrations on demand.

Jobs that are flows (``ingest``, ``knowledge.*``, ``research*``) are defined here, beside
the flow they run.
"""
