"""GraphQL types of the connection lifecycle.

Read first: ``types.py``.
"""
