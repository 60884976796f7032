"""One entry of a structured ingest's ``metadata`` section, checked and cleaned before it
becomes a node.

The section maps an entity id to ``{"type": ..., "properties": {...}}``: each entry becomes
a node (``type:id`` when the id has no namespace), its properties laid over those of a node
of the same key given in ``nodes``.
"""

from __future__ import annotations

from collections.abc import Mapping

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.node_properties import RESERVED
from kenning.domain.ingestion.rules import clean_metadata
from kenning.domain.ingestion.secrets.scan import SecretPolicy


def metadata_entry(
    entry: object, where: str, policy: SecretPolicy
) -> tuple[str | None, dict[str, object]]:
    """An entry's type and cleaned properties; ``ValidationError`` when it is malformed."""
    if not isinstance(entry, Mapping) or set(entry) - {"type", "properties"}:
        raise ValidationError("must be an object with type and properties", field=where)
    entity_type, properties = entry.get("type"), entry.get("properties", {})
    if entity_type is not None and (not isinstance(entity_type, str) or not entity_type.strip()):
        raise ValidationError("type must be a non-empty string", field=where)
    if not isinstance(properties, Mapping):
        raise ValidationError("properties must be an object", field=where)
    cleaned = clean_metadata(properties, policy, f"{where}.properties")
    reserved = RESERVED & set(cleaned)
    if reserved:
        raise ValidationError(f"reserved property {sorted(reserved)[0]}", field=where)
    return entity_type, cleaned
