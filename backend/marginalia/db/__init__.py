"""Data layer: where the database lives, the schema, migrations and every SQL query."""

from marginalia.db.engine import Database, open_database

__all__ = ["Database", "open_database"]
