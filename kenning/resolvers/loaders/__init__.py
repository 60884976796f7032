"""DataLoaders, one per file, built fresh for every request and per reader scope."""

from __future__ import annotations

from dataclasses import dataclass, field

from kenning.domain.access.scope import Scope
from kenning.resolvers.loaders.chunks_by_id import ChunksByIdLoader, chunks_by_id_loader
from kenning.resolvers.loaders.chunks_by_node import ChunksByNodeLoader, chunks_by_node_loader
from kenning.resolvers.loaders.degree_by_node import DegreeByNodeLoader, degree_by_node_loader
from kenning.resolvers.loaders.edges_by_node import EdgesByNodeLoader, edges_by_node_loader
from kenning.resolvers.loaders.nodes_by_key import NodesByKeyLoader, nodes_by_key_loader
from kenning.runtime import Runtime


@dataclass(slots=True)
class Loaders:
    """The request's loaders. A request may read with several (narrowed) scopes, so each
    loader is kept per reader scope; within one, lookups batch into one statement."""

    runtime: Runtime
    _chunks_by_id: dict[Scope, ChunksByIdLoader] = field(default_factory=dict)
    _nodes_by_key: dict[Scope, NodesByKeyLoader] = field(default_factory=dict)
    _edges_by_node: dict[Scope, EdgesByNodeLoader] = field(default_factory=dict)
    _degree_by_node: dict[Scope, DegreeByNodeLoader] = field(default_factory=dict)
    _chunks_by_node: dict[Scope, ChunksByNodeLoader] = field(default_factory=dict)

    def chunks_by_id(self, reader: Scope) -> ChunksByIdLoader:
        """Visible chunks by id for ``reader``."""
        loader = self._chunks_by_id.get(reader)
        if loader is None:
            loader = self._chunks_by_id[reader] = chunks_by_id_loader(self.runtime, reader)
        return loader

    def nodes_by_key(self, reader: Scope) -> NodesByKeyLoader:
        """Visible nodes by canonical key for ``reader``."""
        loader = self._nodes_by_key.get(reader)
        if loader is None:
            loader = self._nodes_by_key[reader] = nodes_by_key_loader(self.runtime, reader)
        return loader

    def edges_by_node(self, reader: Scope) -> EdgesByNodeLoader:
        """A node's visible edges (per direction, edge types and limit) for ``reader``."""
        loader = self._edges_by_node.get(reader)
        if loader is None:
            loader = self._edges_by_node[reader] = edges_by_node_loader(self.runtime, reader)
        return loader

    def degree_by_node(self, reader: Scope) -> DegreeByNodeLoader:
        """How many visible edges touch a node, for ``reader``."""
        loader = self._degree_by_node.get(reader)
        if loader is None:
            loader = self._degree_by_node[reader] = degree_by_node_loader(self.runtime, reader)
        return loader

    def chunks_by_node(self, reader: Scope) -> ChunksByNodeLoader:
        """The newest visible chunks referencing a node, for ``reader``."""
        loader = self._chunks_by_node.get(reader)
        if loader is None:
            loader = self._chunks_by_node[reader] = chunks_by_node_loader(self.runtime, reader)
        return loader


__all__ = ["Loaders"]
