"""Hybrid search in PostgreSQL: the pgvector and full-text arms and their SQL.

Read first: ``chunk_search.py``, then ``search_sql.py``; the exact ways: ``exact_sql.py``
(PostgreSQL compares every visible vector) and ``resident.py`` (a process's copy does).
"""
