"""The lifecycle of source connections (a mailbox, a drive, a git remote): register and index
a summary, keep sync cursors, revoke (cancel queued work and purge what the connection
produced). The registry's model and the rule a write naming a connection must pass live with
ingestion (``ingestion/source_connections.py``), which checks them on every write.

Read first: ``lifecycle.py``.
"""
