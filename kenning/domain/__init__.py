"""Pure rules and use cases; imports no driver, no Strawberry, no httpx.

One sub-package per feature (the same names in storage/, resolvers/ and schema/), depending
in one direction: ``connections`` → ``queue`` | ``retrieval`` → ``graph`` → ``ingestion`` →
``access``. Shared at the top: ``errors.py`` (the exception tree, read first),
``embedding.py`` (the Embedder port), ``off_loop.py`` and ``health.py``.
"""
