"""Resolvers of ``search``, ``chunksByKind``, ``chunk(s)``, ``evidencePack`` and
``agentContext``.

Read first: ``search.py``.
"""
