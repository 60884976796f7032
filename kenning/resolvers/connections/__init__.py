"""Resolvers of the connection lifecycle: register, sync cursors, revoke.

Read first: ``lifecycle.py``.
"""
