"""The pages a docs build writes itself: the home page (``README.md``), the API reference
(``schema.graphql``) and the settings page (``Settings``).

``generated_pages(root)`` gives each page's path in the site and its Markdown; the MkDocs
hook (``pages.py``) adds them to the build, and the tests read the same function.
"""

from __future__ import annotations

import re
from pathlib import Path

from docs.hooks.api_reference import api_pages
from docs.hooks.settings_reference import PAGE as SETTINGS_PAGE
from docs.hooks.settings_reference import meanings, settings_page

# Pages whose tables hold the settings' meanings.
SETTINGS_TABLES = ("reference/configuration.md", "router.md")
_DOCS_LINK = re.compile(r"\]\(docs/")


def home_page(readme: str) -> str:
    """README.md as the site's home page: its links into ``docs/`` made relative to it."""
    return _DOCS_LINK.sub("](", readme)


def generated_pages(root: Path) -> dict[str, str]:
    """Path in the site → Markdown of every generated page; ``root`` is the repository."""
    docs = root / "docs"
    tables = [(docs / page).read_text() for page in SETTINGS_TABLES]
    return {
        "index.md": home_page((root / "README.md").read_text()),
        **api_pages((root / "schema.graphql").read_text()),
        SETTINGS_PAGE: settings_page(meanings(tables)),
    }
