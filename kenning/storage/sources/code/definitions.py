"""Definitions of Python, Kotlin and Java files: classes and their kin, methods, functions.

Each ``_<language>`` function looks at one node and returns what it defines (or ``None``);
``walk`` (in ``syntax_walk``) recurses into class bodies and top-level blocks.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from kenning.domain.sources.code.structure import DefinitionKind
from kenning.storage.sources.code.grammars import child_of_type, text


@dataclass(frozen=True, slots=True)
class Found:
    """What one node defines: its kind, name, bases, body (to recurse into and to end the
    signature), the node its range starts at, and a Go receiver."""

    kind: DefinitionKind
    name: str
    bases: tuple[str, ...]
    body: Node | None
    outer: Node
    receiver: str | None = None


def python(node: Node, in_type: bool) -> Found | None:
    """A Python class or function (decorated ones start at their first decorator)."""
    outer = node
    if node.type == "decorated_definition":
        inner = node.child_by_field_name("definition")
        if inner is None:
            return None
        node = inner
    body = node.child_by_field_name("body")
    name = text(node.child_by_field_name("name"))
    if node.type == "class_definition":
        supers = node.child_by_field_name("superclasses")
        bases = tuple(
            text(c)
            for c in (supers.named_children if supers else ())
            if c.type != "keyword_argument"
        )
        return Found(DefinitionKind.CLASS, name, bases, body, outer)
    if node.type == "function_definition":
        kind = DefinitionKind.METHOD if in_type else DefinitionKind.FUNCTION
        return Found(kind, name, (), body, outer)
    return None


def kotlin(node: Node, in_type: bool) -> Found | None:
    """A Kotlin class, interface, enum, object or function."""
    name = text(node.child_by_field_name("name"))
    if node.type in ("class_declaration", "object_declaration"):
        kind = DefinitionKind.OBJECT if node.type == "object_declaration" else DefinitionKind.CLASS
        keywords = {c.type for c in node.children if not c.is_named}
        if "interface" in keywords:
            kind = DefinitionKind.INTERFACE
        elif "enum" in text(child_of_type(node, "modifiers")):
            kind = DefinitionKind.ENUM
        return Found(kind, name, _kotlin_bases(node), _kotlin_body(node), node)
    if node.type == "function_declaration":
        kind = DefinitionKind.METHOD if in_type else DefinitionKind.FUNCTION
        return Found(kind, name, (), child_of_type(node, "function_body"), node)
    return None


def _kotlin_body(node: Node) -> Node | None:
    return child_of_type(node, "class_body", "enum_class_body")


def _kotlin_bases(node: Node) -> tuple[str, ...]:
    specifiers = child_of_type(node, "delegation_specifiers")
    bases: list[str] = []
    for specifier in specifiers.named_children if specifiers else ():
        target = specifier
        while target.type != "user_type" and target.named_children:
            target = target.named_children[0]
        if target.type == "user_type":
            bases.append(text(target))
    return tuple(bases)


_JAVA_TYPES = {
    "class_declaration": DefinitionKind.CLASS,
    "interface_declaration": DefinitionKind.INTERFACE,
    "enum_declaration": DefinitionKind.ENUM,
    "record_declaration": DefinitionKind.CLASS,
    "annotation_type_declaration": DefinitionKind.INTERFACE,
}


def java(node: Node, in_type: bool) -> Found | None:
    """A Java class, interface, enum or record, a method or a constructor."""
    name = text(node.child_by_field_name("name"))
    body = node.child_by_field_name("body")
    if node.type in _JAVA_TYPES:
        bases: list[str] = []
        superclass = node.child_by_field_name("superclass")
        if superclass is not None:
            bases += [text(c) for c in superclass.named_children]
        for holder in (
            node.child_by_field_name("interfaces"),
            child_of_type(node, "extends_interfaces"),
        ):
            types = child_of_type(holder, "type_list") if holder is not None else None
            bases += [text(c) for c in (types.named_children if types else ())]
        return Found(_JAVA_TYPES[node.type], name, tuple(bases), body, node)
    if node.type in ("method_declaration", "constructor_declaration") and in_type:
        return Found(DefinitionKind.METHOD, name, (), body, node)
    return None
