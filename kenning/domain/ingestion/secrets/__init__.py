"""Credentials never reach storage, embeddings or a model: the detector (detect-secrets
plugins plus Kenning's own rules) finds them in every field, and the policy refuses or redacts.

Read first: ``scan.py`` (``scan`` and ``apply_policy``), then ``findings.py``.
"""
