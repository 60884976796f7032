"""Reading the entity graph: nodes, edges with their evidence chunks, neighbourhoods and
shortest paths, always inside the reader's scope.

Read first: ``model.py`` (the read models and the ``GraphReader`` port), then ``traverse.py``.
"""
