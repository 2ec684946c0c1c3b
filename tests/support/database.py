"""The `database` fixture: a migrated database on SQLite and PostgreSQL (written by the db work)."""
