"""GraphQL types of agent memory: task outcomes, user knowledge, session entries,
procedures and hard rules, and their past (histories, the change log, node corrections).

Read first: the module named like the memory you need (``session.py``, ``rules.py``, ...).
"""
