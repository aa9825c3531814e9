"""The view's schemas written beside core's blocks of an encoded view keep core's fields.

``PlayerView``, ``Board``, ``Market`` and ``CommissionStack`` (api/http/view_schemas.py) describe
the JSON of core's ``PlayerBlock`` (core/view_players.py) and ``_BoardBlock``, ``_Market``,
``_Stack`` (core/view_board.py). They are not derived from them: core's fields are typed for what
it encodes (mostly ``Any``: its own lists, dice and cards as they are), the schemas' for what a
client reads (bounds, descriptions). So this holds them alike: the same field names in the same
order (msgspec writes the JSON in the struct's order), and, where core's type says more than
``Any``, the same type once the schema's refinements (``Annotated`` bounds and descriptions, a
``Literal`` of strings for a ``str``, a struct for core's open ``dict``) are read as core's.
"""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any, Literal

import msgspec
import pytest

from darkroad.api.http.view_schemas import Board, BoardExtra, CommissionStack, Market, PlayerView
from darkroad.core.view_board import _BoardBlock, _Market, _Stack
from darkroad.core.view_players import PlayerBlock

PAIRS: list[tuple[type[msgspec.Struct], type[msgspec.Struct]]] = [
    (PlayerView, PlayerBlock), (Board, _BoardBlock), (Market, _Market), (CommissionStack, _Stack)]
AS_CORE: dict[Any, Any] = {schema: core for schema, core in PAIRS} | {BoardExtra: dict[str, Any]}
"""A schema's struct as the core type it describes (``BoardExtra``: the plugins' open object)."""


def shape(kind: Any) -> Any:
    """``kind`` as core would type it: no ``Annotated``, a ``Literal`` of strings a ``str``, a
    schema's struct its core counterpart, unions as sets, generics as (origin, arguments)."""
    kind = AS_CORE.get(kind, kind)
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is Annotated:
        return shape(args[0])
    if origin is Literal and all(isinstance(arg, str) for arg in args):
        return str
    if origin in (typing.Union, types.UnionType):
        return frozenset(map(shape, args))
    if origin is None:
        return kind
    return origin, tuple(map(shape, args))


@pytest.mark.parametrize(("schema", "core"), PAIRS, ids=[schema.__name__ for schema, _ in PAIRS])
def test_a_view_schema_has_its_core_blocks_fields(schema: type[msgspec.Struct], core: type[msgspec.Struct]) -> None:
    schema_fields = msgspec.structs.fields(schema)
    core_fields = msgspec.structs.fields(core)
    assert [f.name for f in schema_fields] == [f.name for f in core_fields]
    typed = [(ours.name, shape(ours.type), shape(theirs.type))
             for ours, theirs in zip(schema_fields, core_fields, strict=True) if theirs.type is not Any]
    assert typed, "core types some of the block's fields"
    assert [(name, ours) for name, ours, _ in typed] == [(name, theirs) for name, _, theirs in typed]


def test_the_shapes_tell_a_changed_type() -> None:
    """The comparison is not blind: a bound or description is no difference, another type is."""
    count = Annotated[int, msgspec.Meta(ge=0, description="Cards.")]
    assert shape(count) == shape(int)
    assert shape(dict[str, CommissionStack]) == shape(dict[str, _Stack])
    assert shape(Literal["north", "south"]) == shape(str)
    assert shape(int | None) == shape(None | int)
    assert shape(list[int]) != shape(list[str])
    assert shape(count | None) != shape(int)
    assert shape(dict[str, Market]) != shape(dict[str, _Stack])
