"""GraphQL types of erasure: ``eraseSubject``'s result and ``erasureReceipts``.

Read first: ``types.py``.
"""
