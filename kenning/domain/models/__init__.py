"""Kenning's own model calls: one port for chat-style generation through the router (or any
Ollama-compatible URL), structured outputs validated with pydantic and retried with the
validation error fed back, and the secret check that runs before any text reaches a model.

Read first: ``ports.py`` (the port, its request, reply and errors), ``structured.py`` (the
validated call every feature uses), ``guard.py`` (secrets before the model).
"""
