"""``EdgeAssertion``: a source that gave an edge with no text, as ``Edge.assertedBy`` lists it."""

from __future__ import annotations

from datetime import datetime

import strawberry

from kenning.domain.ingestion.edge_sources import Assertion


@strawberry.type(
    description="A source that gave an edge with no text to cite (ASSERTED evidence): an org "
    "chart, a code graph, a structured import. Purging the source removes the assertion."
)
class EdgeAssertion:
    source_urn: str = strawberry.field(description="The source that asserted the edge.")
    writer: str | None = strawberry.field(
        description="The id of the key that wrote the source; null when none did (a crawl)."
    )
    asserted_at: datetime | None = strawberry.field(description="When it was asserted.")

    @classmethod
    def from_assertion(cls, assertion: Assertion) -> EdgeAssertion:
        """The GraphQL form of an assertion."""
        return cls(
            source_urn=assertion.source_urn,
            writer=assertion.writer,
            asserted_at=assertion.asserted_at,
        )
