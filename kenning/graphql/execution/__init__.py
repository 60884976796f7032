"""How a GraphQL document is checked and run: its cost, validation off the event loop, the
one executor and its hooks (the request's checks, the storable-text check of every input,
plain fields completed directly), error shaping and the per-operation log line.

Read first: ``document_guard.py``, then ``executor.py`` and ``error_shaping.py``.
"""
