"""PostgreSQL adapters of agent memory: session entries, procedures and hard rules (task
outcomes and user knowledge are documents of the knowledge store), and memory's past: the
versions of knowledge and procedures, the change log, node property history.

Read first: ``session_entries.py``, ``procedures.py``, ``rules.py``.
"""
