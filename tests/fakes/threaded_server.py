"""Where `fake_embed_backend` finds `ThreadedServer`, which moved to `kenning.router.demo`.

A re-export, not a copy: delete it once ``fake_embed_backend.py`` imports from there.
"""

from kenning.router.demo.threaded_server import ThreadedServer

__all__ = ["ThreadedServer"]
