"""Bibliography formats in and out of a workspace: BibTeX (with Better BibTeX's fields),
RIS and CSL-JSON — what Zotero and Mendeley export — parsed into :class:`ImportRecord`
lists (``records.py``, one module per format), Zotero ``file`` attachments resolved inside
the export's own folder (``attachments.py``), and the same formats written back out."""
