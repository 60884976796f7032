"""The connection registry in PostgreSQL: connections and their sync cursors.

Read first: ``registry.py``.
"""
