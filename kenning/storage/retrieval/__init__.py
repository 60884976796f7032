"""Hybrid search in PostgreSQL: the pgvector and full-text arms and their SQL.

Read first: ``chunk_search.py``; ``search_way.py`` decides how a nearest-neighbour search
is answered: the HNSW walk (``vector_sql.py``), PostgreSQL comparing every visible vector
(``exact_sql.py``) or this process's copy doing it (``resident.py``). KEYWORD's statements
are in ``bm25_sql.py``; every statement's values are a ``StatementArgs``
(``filter_sql.py``, which also writes the scope and filters as SQL).
"""
