"""Discovery sources: arXiv, OpenAlex, Brave web search, a local catalog, BibTeX.

Every source maps its results to :class:`Candidate` and implements
:class:`SourceClient`; failures are :class:`SourceError` with a machine-readable reason.
(Safe PDF fetching lives in :mod:`marginalia.sources.fetch`.)
"""

from marginalia.sources.base import SourceClient, SourceError, SourceErrorReason
from marginalia.sources.candidate import (
    Candidate,
    Origin,
    normalize_arxiv_id,
    normalize_doi,
    normalize_openalex_id,
    normalized_url,
)

__all__ = [
    "Candidate",
    "Origin",
    "SourceClient",
    "SourceError",
    "SourceErrorReason",
    "normalize_arxiv_id",
    "normalize_doi",
    "normalize_openalex_id",
    "normalized_url",
]
