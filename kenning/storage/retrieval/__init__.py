"""Hybrid search in PostgreSQL: the pgvector and full-text arms and their SQL.

Read first: ``chunk_search.py``, then ``search_sql.py``.
"""
