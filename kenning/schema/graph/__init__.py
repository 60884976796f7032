"""GraphQL types of the graph: ``Node``, ``Edge``, ``Subgraph`` and ``Path``.

Read first: ``types.py``, then ``find.py`` (``NodeMatch``, what ``findNodes`` returns).
"""
