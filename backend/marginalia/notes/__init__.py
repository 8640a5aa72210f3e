"""Highlights and the notes on them (issue 16): anchors in the stored page text
(:mod:`.anchors`), storage (:mod:`.repository`), Markdown and BibTeX export
(:mod:`.export`) and the API bodies (:mod:`.schemas`). The flows are
:mod:`marginalia.usecases.notes`."""
