"""The storage kernel every feature builds on: the asyncpg pool, the table definitions Alembic
migrates, the scope visibility SQL, AGE's agtype helpers and the database's health.

Read first: ``pool.py``, ``tables.py``, then ``visibility.py``.
"""
