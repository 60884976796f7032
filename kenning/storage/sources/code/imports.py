"""Imports of a file, per language: the module named and the names bound."""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from kenning.domain.sources.code.structure import CodeLanguage, Import
from kenning.storage.sources.code.grammars import child_of_type, lines, text


def imports(root: Node, language: CodeLanguage) -> list[Import]:
    """Every import among ``root``'s statements (and Go's import blocks)."""
    found: list[Import] = []
    for node in root.named_children:
        found.extend(_statement(node, language))
    return found


def _statement(node: Node, language: CodeLanguage) -> Iterator[Import]:
    if language is CodeLanguage.PYTHON:
        yield from _python(node)
    elif language is CodeLanguage.JAVA and node.type == "import_declaration":
        yield _jvm(node, child_of_type(node, "scoped_identifier", "identifier"))
    elif language is CodeLanguage.KOTLIN and node.type in ("import", "import_header"):
        yield _jvm(node, child_of_type(node, "qualified_identifier", "identifier"))
    elif language is CodeLanguage.GO and node.type == "import_declaration":
        yield from _go(node)
    elif language in (CodeLanguage.TYPESCRIPT, CodeLanguage.TSX, CodeLanguage.JAVASCRIPT):
        yield from _script(node)


def _python(node: Node) -> Iterator[Import]:
    line = lines(node)[0]
    if node.type == "import_statement":
        for name in node.children_by_field_name("name"):
            target = name.child_by_field_name("name") if name.type == "aliased_import" else name
            yield Import(text(target), line)
    elif node.type == "import_from_statement":
        module = text(node.child_by_field_name("module_name"))
        names = []
        for name in node.children_by_field_name("name"):
            if name.type == "aliased_import":
                alias = text(name.child_by_field_name("alias"))
                names.append(f"{text(name.child_by_field_name('name'))} as {alias}")
            else:
                names.append(text(name))
        yield Import(module, line, tuple(names))


def _jvm(node: Node, name: Node | None) -> Import:
    module = text(name)
    star = child_of_type(node, "asterisk") is not None or text(node).rstrip(" ;").endswith("*")
    alias = child_of_type(node, "import_alias")
    local = module.rsplit(".", 1)[-1]
    bound = () if star else (f"{local} as {text(alias).split()[-1]}" if alias else local,)
    return Import(module, lines(node)[0], bound)


def _go(node: Node) -> Iterator[Import]:
    holder = child_of_type(node, "import_spec_list") or node
    for spec in holder.named_children:
        if spec.type == "import_spec":
            path = text(spec.child_by_field_name("path")).strip('"`')
            alias = text(spec.child_by_field_name("name"))
            local = alias or path.rsplit("/", 1)[-1]
            yield Import(path, lines(spec)[0], (local,))


def _script(node: Node) -> Iterator[Import]:
    source = node.child_by_field_name("source")
    if node.type in ("import_statement", "export_statement") and source is not None:
        names = list(_bound(child_of_type(node, "import_clause")))
        yield Import(text(source).strip("\"'`"), lines(node)[0], tuple(names))
    elif node.type in ("lexical_declaration", "variable_declaration"):
        for declarator in node.named_children:
            value = declarator.child_by_field_name("value")
            if value is not None and value.type == "call_expression":
                called = value.child_by_field_name("function")
                arguments = value.child_by_field_name("arguments")
                first = child_of_type(arguments, "string") if arguments else None
                if text(called) == "require" and first is not None:
                    local = text(declarator.child_by_field_name("name"))
                    yield Import(text(first).strip("\"'`"), lines(node)[0], (local,))


def _bound(clause: Node | None) -> Iterator[str]:
    for child in clause.named_children if clause else ():
        if child.type == "identifier":
            yield text(child)
        elif child.type == "namespace_import":
            yield text(child_of_type(child, "identifier"))
        elif child.type == "named_imports":
            for spec in child.named_children:
                name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
                yield f"{text(name)} as {text(alias)}" if alias else text(name)
