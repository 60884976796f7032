"""The web console at ``GET /console/``, served by Kenning itself (no CDN, no key to load it).

The console is a Preact bundle built from ``web/console/`` by ``scripts/install.sh`` into
``static/`` (gitignored, shipped in the wheel). It talks to the server only through the
public GraphQL API, with the key the person signs in with. ``console_routes`` answers
``/console`` (a redirect), ``/console/`` (the HTML shell naming the hashed files) and
``/console/static/<name>`` (the files, cached for a year). Read ``_bundle.py`` first.
"""

from __future__ import annotations

from kenning.console._routes import console_routes

__all__ = ["console_routes"]
