"""Code structure adapters: tree-sitter parsing (``tree_sitter_parser``, grammars in
``grammars``, per-language rules in ``definitions``, ``script_definitions`` and ``imports``)
git over its command line (``git_cli``, run as ``git_env`` says, on the git directory
``git_dir`` finds and checks against the roots), and where repository jobs read
(``repositories``: roots and the clone cache)."""

from kenning.storage.sources.code.git_cli import GitCli
from kenning.storage.sources.code.repositories import Repositories
from kenning.storage.sources.code.tree_sitter_parser import TreeSitterParser

__all__ = ["GitCli", "Repositories", "TreeSitterParser"]
