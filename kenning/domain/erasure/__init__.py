"""Erasure of a person (or any subject): a node, its aliases, every edge touching it, the
memory and chunks that name it, and the history of all of that, within one client; a receipt
that counts what went, and a tombstone that keeps later writes from bringing it back.

Read first: ``names.py`` (how a subject's names are found and replaced in text), then
``erase.py`` (the use case a queued job runs), ``erase_request.py`` (the entries
``eraseSubject`` and ``erasureReceipts`` call) and ``tombstone.py`` (later writes).
"""
