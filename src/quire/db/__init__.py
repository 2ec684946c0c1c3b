"""The database: SQLAlchemy models, migrations and the functions that read and write them."""
