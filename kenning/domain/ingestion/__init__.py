"""Writing knowledge: a request is checked (identifiers, size, secrets, connection rules),
chunked, hashed for idempotence, embedded and stored with its graph (``type:id`` references,
relationship blocks, explicit nodes and edges, git commits), in one unit of work.

Read first: ``request.py`` (the request and outcome records), ``ingest.py`` (the use case),
``rules.py`` (what is refused), ``ports.py`` (the store it writes through). The faces'
entries: ``checked_graph.py`` (structured writes) and ``purge_request.py`` (purges).
"""
