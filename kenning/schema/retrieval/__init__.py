"""GraphQL types of search, chunks, evidence packs and agent context.

Read first: ``search.py``, then ``chunk.py``.
"""
