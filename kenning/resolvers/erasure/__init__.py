"""Resolvers of erasure: ``eraseSubject`` and ``erasureReceipts`` (admin keys only)."""
