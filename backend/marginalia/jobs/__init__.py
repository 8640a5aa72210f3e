"""Jobs: persisted state and events, run in-process or on arq workers."""
