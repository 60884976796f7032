"""GraphQL types of agent memory: task outcomes, user knowledge, session entries,
procedures and hard rules, and their past (histories, the change log, node corrections).

Read first: the module named like the memory you need (``session.py``, ``rules.py``, ...).
"""

# Before any submodule: its types' fields resolve these enums as they are defined.
from kenning.schema.memory import enums as enums
