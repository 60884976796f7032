"""GraphQL types of the sources feature: files (``ingestFile``), web crawls and code
repositories.

One module per source: ``files.py``, ``crawl.py``, ``code.py``; ``listing.py`` holds the
pages of ``sources`` and ``storedFiles`` (``purgeCrawl`` and ``purgeRepository`` answer
``PurgeResult``, as ``purgeSource`` does).
"""
