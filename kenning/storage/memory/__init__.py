"""PostgreSQL adapters of agent memory: session entries, procedures and hard rules (task
outcomes and user knowledge are documents of the knowledge store).

Read first: ``session_entries.py``, ``procedures.py``, ``rules.py``.
"""
