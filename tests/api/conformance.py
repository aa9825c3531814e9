"""Checks JSON values against the OpenAPI document's schemas, member by member.

A JSON Schema validator says whether a value is valid; this says *what* is missing from the
document: a member the engine sends that no schema names ("add it to `Board` in
api/http/view_schemas.py"), a leaf of another type than documented, and, over many values, which
documented members never showed up (documentation of something the engine does not send).
Objects are checked closed: a member is documented by ``properties`` or by a typed
``additionalProperties``; ``additionalProperties: true`` marks the open objects plugins fill.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

_REF = "#/components/schemas/"
_KINDS: dict[type, str] = {
    dict: "object",
    list: "array",
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
}
"""The JSON type of each Python type a decoded JSON value (or a view before encoding) has."""


def _is_a(value: Any, types: str | list[str]) -> bool:
    """Whether ``value`` is of the JSON type ``types`` (a name or a list of names): an integer
    is a number too, a boolean neither."""
    kind = _KINDS.get(type(value))
    if isinstance(types, str):
        return kind == types or (kind == "integer" and types == "number")
    return kind in types or (kind == "integer" and "number" in types)


class Conformance:
    """Checks values against the components of ``doc``; remembers every member it saw."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.schemas: dict[str, Any] = doc["components"]["schemas"]
        self.seen: Counter[tuple[str, str]] = Counter()
        """(component, member) pairs seen in checked values."""

    def check(self, value: Any, component: str, where: str) -> list[str]:
        """What in ``value`` (found at ``where``) does not match the schema ``component``."""
        seen: list[tuple[str, str]] = []
        problems = self._check(value, {"$ref": _REF + component}, where, component, seen)
        if not problems:
            self.seen.update(seen)
        return problems

    def documented(self, roots: Iterable[str]) -> set[tuple[str, str]]:
        """Every (component, member) reachable from the components ``roots``."""
        found: set[tuple[str, str]] = set()
        visited: set[str] = set()

        def walk(schema: Any, owner: str) -> None:
            if not isinstance(schema, dict):
                return
            ref = schema.get("$ref")
            if ref:
                name = ref.removeprefix(_REF)
                if name not in visited:
                    visited.add(name)
                    walk(self.schemas[name], name)
                return
            for member, sub in schema.get("properties", {}).items():
                found.add((owner, member))
                walk(sub, owner)
            for key in ("items", "additionalProperties"):
                walk(schema.get(key), owner)
            for key in ("oneOf", "anyOf", "allOf"):
                for sub in schema.get(key, []):
                    walk(sub, owner)

        for root in roots:
            walk({"$ref": _REF + root}, root)
        return found

    # -- the walk ------------------------------------------------------------------------
    def _check(self, value: Any, schema: dict[str, Any], where: str, owner: str,
               seen: list[tuple[str, str]]) -> list[str]:
        ref = schema.get("$ref")
        if ref:
            owner = ref.removeprefix(_REF)
            schema = self.schemas[owner]
        if "oneOf" in schema or "anyOf" in schema:
            return self._union(value, schema, where, owner, seen)
        problems = self._leaf(value, schema, where, owner)
        if problems:
            return problems
        if isinstance(value, dict):
            return self._object(value, schema, where, owner, seen)
        if isinstance(value, list) and "items" in schema:
            return [p for i, item in enumerate(value)
                    for p in self._check(item, schema["items"], f"{where}[{i}]", owner, seen)]
        return []

    def _union(self, value: Any, schema: dict[str, Any], where: str, owner: str,
               seen: list[tuple[str, str]]) -> list[str]:
        branches = schema.get("oneOf") or schema["anyOf"]
        discriminator = schema.get("discriminator")
        if discriminator is not None:
            tag = value.get(discriminator["propertyName"]) if isinstance(value, dict) else None
            target = discriminator["mapping"].get(tag)
            if target is None:
                return [f"{where}: `{tag}` is not a tag of {owner}'s discriminator"]
            return self._check(value, {"$ref": target}, where, owner, seen)
        best: list[str] | None = None
        for branch in branches:
            attempt: list[tuple[str, str]] = []
            problems = self._check(value, branch, where, owner, attempt)
            if not problems:
                seen += attempt
                return []
            if best is None or len(problems) < len(best):
                best = problems
        return best or [f"{where}: matches no branch of {owner}"]

    @staticmethod
    def _leaf(value: Any, schema: dict[str, Any], where: str, owner: str) -> list[str]:
        types = schema.get("type")
        if types is not None and not _is_a(value, types):
            allowed = [types] if isinstance(types, str) else types
            return [f"{where}: {value!r} is not {'/'.join(allowed)} as {owner} documents it"]
        if "const" in schema and value != schema["const"]:
            return [f"{where}: {value!r} is not the constant {schema['const']!r} of {owner}"]
        if "enum" in schema and value not in schema["enum"]:
            return [f"{where}: {value!r} is not one of {owner}'s values {schema['enum']}"]
        if "not" in schema and value in schema["not"].get("enum", ()):
            return [f"{where}: {value!r} is one of the values {owner} excludes"]
        if type(value) in (int, float):
            if "minimum" in schema and value < schema["minimum"]:
                return [f"{where}: {value} is below {owner}'s documented minimum {schema['minimum']}"]
            if "maximum" in schema and value > schema["maximum"]:
                return [f"{where}: {value} is above {owner}'s documented maximum {schema['maximum']}"]
        return []

    def _object(self, value: dict[str, Any], schema: dict[str, Any], where: str, owner: str,
                seen: list[tuple[str, str]]) -> list[str]:
        problems = [f"{where}.{name}: required by {owner} but missing"
                    for name in schema.get("required", []) if name not in value]
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for name, member in value.items():
            if name in properties:
                seen.append((owner, name))
                problems += self._check(member, properties[name], f"{where}.{name}", owner, seen)
            elif isinstance(extra, dict):
                problems += self._check(member, extra, f"{where}.{name}", owner, seen)
            elif extra is not True:
                problems.append(f"{where}.{name}: sent but not documented (add `{name}` to {owner})")
        return problems
