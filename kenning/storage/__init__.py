"""Adapters of the domain's ports: asyncpg (SQL, pgvector, AGE) and Redis.

The same feature packages as the domain, on the kernel ``db/`` (pool, tables, migrate,
visibility, agtype, health) and ``embedders/``. Wiring these into a server is the composition
root's job (``kenning/runtime.py``, ``kenning/queue_services.py``), not an adapter's.
"""
