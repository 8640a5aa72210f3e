"""The `marginalia` command line."""

from marginalia.cli.app import app, main

__all__ = ["app", "main"]
