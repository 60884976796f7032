"""Adapters of the domain's ports: asyncpg (SQL, pgvector, AGE) and Redis."""
