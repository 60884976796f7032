"""PostgreSQL adapters of access: API keys (hashed), key revocations broadcast to every
process, and the project groups a client has recorded.

Read first: ``api_keys.py``.
"""
