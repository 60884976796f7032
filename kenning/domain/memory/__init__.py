"""An agent's memory beside the knowledge base: task outcomes worth keeping, what is known
about the user (prefetched without embedding), the session's recent entries, learned and
user-defined procedures, and the client's hard rules (versioned, never searched by
similarity, never mixed with soft memory). Everything is scoped by the caller's principal.
Memory keeps its past: versions of user knowledge, procedures and node properties
(``node_history.py``, with ``updateNode``), and one change log (``changes.py``).

Every face (GraphQL, MCP) reaches a use case through one entry taking the caller
(``CallerScope``), a plain request and its deps: ``outcome_request.py``,
``knowledge_request.py``, ``session_request.py``, ``procedure_request.py``,
``rule_request.py``, ``context_request.py`` (``agentContext``) and ``changes.changes_for``.

Read first: ``task_outcomes.py``, ``user_knowledge.py``, ``session.py``, ``procedures.py``,
``rules.py`` (one module per kind of memory), then the ``*_request.py`` entries.
"""
