"""GraphQL types of who is calling, API key management and scope.

Read first: ``scope.py``.
"""
