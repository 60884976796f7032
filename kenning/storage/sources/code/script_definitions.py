"""Definitions of TypeScript, JavaScript and Go files."""

from __future__ import annotations

from tree_sitter import Node

from kenning.domain.sources.code.structure import DefinitionKind
from kenning.storage.sources.code.definitions import Found
from kenning.storage.sources.code.grammars import child_of_type, text

_CLASSES = ("class_declaration", "abstract_class_declaration", "class")
_FUNCTIONS = ("function_declaration", "generator_function_declaration")
_METHODS = ("method_definition", "method_signature", "abstract_method_signature")
_FUNCTION_VALUES = ("arrow_function", "function_expression", "function", "generator_function")


def script(node: Node, in_type: bool) -> Found | None:
    """A TypeScript or JavaScript class, interface, method or function (also
    ``const f = () => …``)."""
    name = text(node.child_by_field_name("name"))
    body = node.child_by_field_name("body")
    if node.type in _CLASSES and name:
        return Found(DefinitionKind.CLASS, name, _heritage(node), body, node)
    if node.type == "interface_declaration":
        extends = child_of_type(node, "extends_type_clause")
        bases = tuple(text(c) for c in (extends.named_children if extends else ()))
        return Found(DefinitionKind.INTERFACE, name, bases, body, node)
    if node.type in _METHODS and in_type:
        return Found(DefinitionKind.METHOD, name, (), body, node)
    if node.type in _FUNCTIONS and not in_type:
        return Found(DefinitionKind.FUNCTION, name, (), body, node)
    if node.type in ("lexical_declaration", "variable_declaration") and not in_type:
        declarator = child_of_type(node, "variable_declarator")
        value = declarator.child_by_field_name("value") if declarator else None
        if declarator is not None and value is not None and value.type in _FUNCTION_VALUES:
            named = text(declarator.child_by_field_name("name"))
            return Found(
                DefinitionKind.FUNCTION, named, (), value.child_by_field_name("body"), node
            )
    return None


def _heritage(node: Node) -> tuple[str, ...]:
    heritage = child_of_type(node, "class_heritage")
    if heritage is None:
        return ()
    bases: list[str] = []
    for clause in heritage.named_children:
        if clause.type == "extends_clause":
            bases += [text(clause.child_by_field_name("value"))]
        elif clause.type == "implements_clause":
            bases += [text(c) for c in clause.named_children]
        else:  # JavaScript: the expression itself
            bases.append(text(clause))
    return tuple(b for b in bases if b)


def go(node: Node, in_type: bool) -> Found | None:
    """A Go struct or interface type, a function or a method (named ``Type.Method``)."""
    if node.type == "type_spec":
        shape = node.child_by_field_name("type")
        name = text(node.child_by_field_name("name"))
        if shape is None or shape.type not in ("struct_type", "interface_type"):
            return None
        if shape.type == "interface_type":
            return Found(DefinitionKind.INTERFACE, name, (), None, node)
        fields = child_of_type(shape, "field_declaration_list")
        embedded = [
            text(f.child_by_field_name("type"))
            for f in (fields.named_children if fields else ())
            if f.type == "field_declaration" and f.child_by_field_name("name") is None
        ]
        bases = tuple(e.lstrip("*") for e in embedded if e)
        return Found(DefinitionKind.STRUCT, name, bases, None, node)
    body = node.child_by_field_name("body")
    name = text(node.child_by_field_name("name"))
    if node.type == "function_declaration":
        return Found(DefinitionKind.FUNCTION, name, (), body, node)
    if node.type == "method_declaration":
        receiver = _receiver(node.child_by_field_name("receiver"))
        return Found(DefinitionKind.METHOD, name, (), body, node, receiver or None)
    return None


def _receiver(parameters: Node | None) -> str:
    declaration = child_of_type(parameters, "parameter_declaration") if parameters else None
    kind = declaration.child_by_field_name("type") if declaration else None
    while kind is not None and kind.type in ("pointer_type", "generic_type"):
        kind = (
            kind.named_children[0]
            if kind.type == "pointer_type"
            else kind.child_by_field_name("type")
        )
    return text(kind)
