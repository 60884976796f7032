"""The ``relations`` section of a knowledge file: the relations the file declares for its
client, as ``defineRelation`` would, applied in the load's transaction before its edges.

The section is a list of objects::

    "relations": [
      {"edgeType": "database", "cardinality": "ONE", "description": "Where a service stores"},
      {"edge_type": "USES", "cardinality": "many"}
    ]

The edge type is ``edgeType``, ``edge_type`` (the design's spelling of an edge's type) or
``type``, exactly one of them; ``cardinality`` is ``ONE`` or ``MANY`` in any case;
``description`` is optional. Unlike pieces, nodes and edges, a bad declaration refuses the
whole file with a ``ValidationError`` naming its path (``json.relations[0].cardinality``):
a relation's meaning governs every edge of the client, so half of a file's declarations
must never hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.ingestion.relations import MAX_RELATIONS, Declaration, declaration
from kenning.domain.ingestion.validity import Cardinality

_TYPE_FIELDS: Final = ("edgeType", "edge_type", "type")
_FIELDS: Final = frozenset({*_TYPE_FIELDS, "cardinality", "description"})
SECTION: Final = "json.relations"


def read_relations(section: object) -> tuple[Declaration, ...]:
    """The declarations of a ``relations`` section (absent: ``None`` or ``[]``)."""
    if section is None:
        return ()
    if not isinstance(section, list):
        raise ValidationError("relations must be a list", field=SECTION)
    if len(section) > MAX_RELATIONS:
        raise TooLargeError(f"at most {MAX_RELATIONS} relations per file", field=SECTION)
    found: dict[str, Declaration] = {}
    for index, item in enumerate(section):
        path = f"{SECTION}[{index}]"
        declared = _declaration(item, path)
        if declared.edge_type in found:
            raise ValidationError(
                f"relation {declared.edge_type!r} is declared twice", field=f"{path}.edgeType"
            )
        found[declared.edge_type] = declared
    return tuple(found.values())


def _declaration(item: object, path: str) -> Declaration:
    if not isinstance(item, Mapping):
        raise ValidationError("a relation must be a JSON object", field=path)
    unknown = sorted(str(name) for name in set(item) - _FIELDS)
    if unknown:
        raise ValidationError(f"unknown field {unknown[0]!r}", field=f"{path}.{unknown[0]}")
    named = [name for name in _TYPE_FIELDS if name in item]
    if len(named) != 1:
        raise ValidationError(
            "give the edge type once, as edgeType, edge_type or type",
            field=f"{path}.{named[1] if named else 'edgeType'}",
        )
    edge_type, cardinality = item[named[0]], item.get("cardinality")
    if not isinstance(edge_type, str):
        raise ValidationError("the edge type must be a string", field=f"{path}.{named[0]}")
    description = item.get("description", "")
    if not isinstance(description, str):
        raise ValidationError("description must be a string", field=f"{path}.description")
    try:
        return declaration(edge_type, _cardinality(cardinality, path), description, f"{path}.")
    except ValidationError as error:
        # Named as the file spells it.
        where = (error.field or "").replace(f"{path}.edgeType", f"{path}.{named[0]}")
        raise ValidationError(error.message, field=where) from None


def _cardinality(value: object, path: str) -> Cardinality:
    if isinstance(value, str) and value.strip().upper() in Cardinality.__members__:
        return Cardinality(value.strip().upper())
    raise ValidationError("cardinality must be ONE or MANY", field=f"{path}.cardinality")
