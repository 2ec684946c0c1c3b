"""Alembic migration scripts for the server's database; applied by quire.db.migrate."""
