"""Resolvers of the sources feature: files (``ingestFile``), web crawls and code
repositories, each queued as one job that a registered task runner runs.

One module per source: ``files.py``, ``crawl.py``, ``code.py``; ``listing.py`` lists what
is stored (``sources``, ``storedFiles``) and ``unit_purge.py`` removes a crawl or a
repository branch at once.
"""
