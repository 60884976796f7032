"""Reading the entity graph: nodes, edges with their evidence chunks, neighbourhoods and
shortest paths, and finding nodes by what a person types, always inside the reader's scope.

Read first: ``model.py`` (the read models and the ``GraphReader`` port), then ``traverse.py``
and ``find.py``. The use cases GraphQL and MCP share start in ``reads.py`` (paths,
neighbourhoods, finding), ``node_read.py``, ``node_update.py``, ``edges.py`` and
``chunk_view.chunks_for``.
"""
