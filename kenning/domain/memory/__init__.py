"""An agent's memory beside the knowledge base: task outcomes worth keeping, what is known
about the user (prefetched without embedding), the session's recent entries, learned and
user-defined procedures, and the client's hard rules (versioned, never searched by
similarity, never mixed with soft memory). Everything is scoped by the caller's principal.
Memory keeps its past: versions of user knowledge, procedures and node properties
(``node_history.py``, with ``updateNode``), and one change log (``changes.py``).

Read first: ``task_outcomes.py``, ``user_knowledge.py``, ``session.py``, ``procedures.py``,
``rules.py`` (one module per kind of memory).
"""
