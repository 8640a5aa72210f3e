"""Discovery: the research pipeline (decompose → search → dedup → fetch → ingest → link),
its job, and BibTeX import/export for workspaces."""
