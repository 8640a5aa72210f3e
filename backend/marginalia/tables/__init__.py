"""Evidence tables (issue 37): sources as rows, questions as columns, each cell a short
answer backed by verbatim-checked quotes with their page, or "not reported".

Pure cell logic — what a column asks (:mod:`.columns`), the offline engine
(:mod:`.offline_engine`: rank the source's sentences, cut a short answer
(:mod:`.short_answer`)), the model engine (:mod:`.llm_engine`), quote verification
(:mod:`.cells`), the table as shown (:mod:`.view`) and exported (:mod:`.export`) — around
one seam to the answer stage (:mod:`.evidence`) and the stage's SQL (:mod:`.repository`).
The flow is :mod:`marginalia.usecases.tables`.
"""
