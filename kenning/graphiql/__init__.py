"""The GraphiQL page at ``GET /graphql``, served by Kenning itself (no CDN, no key needed).

The page is a React bundle built from ``web/graphiql/`` by ``scripts/install.sh`` into
``static/`` (gitignored, shipped in the wheel). ``graphiql_page`` answers the browser's
``GET /graphql`` with HTML naming the bundle's hashed files; ``graphiql_routes`` serves them
under ``/graphiql/assets/``. Read ``_bundle.py`` first: where the files are and what
``manifest.json`` says about them.
"""

from __future__ import annotations

from kenning.graphiql._assets import graphiql_routes
from kenning.graphiql._page import graphiql_page

__all__ = ["graphiql_page", "graphiql_routes"]
