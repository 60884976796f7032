"""Resolvers of the graph queries and of the ``Node`` and ``Edge`` fields (through loaders).

Read first: ``queries.py``, then ``find.py`` (``findNodes``) and ``fields.py``.
"""
