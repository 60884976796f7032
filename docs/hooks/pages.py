"""MkDocs hook: adds the generated pages (``generated.py``) to every build.

MkDocs loads this file by path; the build runs as ``python -m mkdocs`` from the repository
root, so ``docs.hooks`` imports from there.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from docs.hooks.generated import generated_pages
from docs.hooks.settings_reference import UndocumentedSettings


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the home page, the API reference and the settings page to the build."""
    root = Path(config.config_file_path).resolve().parent
    try:
        pages = generated_pages(root)
    except UndocumentedSettings as error:
        raise PluginError(str(error)) from error
    for path, content in pages.items():
        if files.get_file_from_path(path) is not None:
            raise ValueError(f"docs/{path} is generated: remove the file of that name")
        files.append(File.generated(config, path, content=content))
    return files
