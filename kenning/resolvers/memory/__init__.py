"""Resolvers of agent memory: task outcomes, user knowledge and context, session memory,
procedures and hard rules, and their past (histories, the change log, node corrections).

Each resolver only translates: its arguments into the request of one domain entry
(``kenning.domain.memory.*_request``), the entry's answer into GraphQL types.

Read first: the module named like the memory you need (``session.py``, ``rules.py``, ...).
"""
