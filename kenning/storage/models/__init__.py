"""Adapters of the ``ModelClient`` port: the in-process router, or any Ollama-compatible
URL over HTTP. Read first: ``factory.py`` (which one the settings ask for)."""
