"""Kenning's own model calls: one port for chat-style generation through the router (or any
Ollama-compatible URL), structured outputs validated with pydantic and retried with the
validation error fed back. Secrets are checked by the features before any text reaches a
model (``kenning.domain.ingestion.rules.clean_content``).

Read first: ``ports.py`` (the port, its request, reply and errors), ``structured.py`` (the
validated call every feature uses), ``failures.py`` (which backend failures are transient).
"""
