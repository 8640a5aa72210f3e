"""Application services: the operations routers and the CLI call."""
