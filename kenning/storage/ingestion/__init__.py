"""PostgreSQL adapters of ingestion: the knowledge store (sources, chunks with pgvector
embeddings, AGE vertices and edges in one transaction), the graph write SQL and the alias
registry with its merge.

Read first: ``knowledge_store.py``, then ``graph_write_sql.py``.
"""
