"""Where ``bench/router.py`` finds `FakeOllama`, which moved to `kenning.router.demo`.

A re-export, not a copy: tests import from `kenning.router.demo`; delete this once the
benchmark does too.
"""

from kenning.router.demo import FakeOllama

__all__ = ["FakeOllama"]
