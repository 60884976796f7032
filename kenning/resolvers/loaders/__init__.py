"""DataLoaders, one per file, built fresh for every request and per reader scope."""

from __future__ import annotations

from dataclasses import dataclass, field

from kenning.domain.scope import Scope
from kenning.resolvers.loaders.chunks_by_id import ChunksByIdLoader, chunks_by_id_loader
from kenning.runtime import Runtime


@dataclass(slots=True)
class Loaders:
    """The request's loaders. A request may read with several (narrowed) scopes, so each
    loader is kept per reader scope; within one, lookups batch into one statement."""

    runtime: Runtime
    _chunks_by_id: dict[Scope, ChunksByIdLoader] = field(default_factory=dict)

    def chunks_by_id(self, reader: Scope) -> ChunksByIdLoader:
        """Visible chunks by id for ``reader``."""
        loader = self._chunks_by_id.get(reader)
        if loader is None:
            loader = self._chunks_by_id[reader] = chunks_by_id_loader(self.runtime, reader)
        return loader


__all__ = ["Loaders"]
