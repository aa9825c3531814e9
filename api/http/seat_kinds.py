"""The installed seat kinds' API surface: their request fields and their view blocks.

A seat kind (``darkroad.core.SeatKind``) declares what the API shows of it, as components
contribute their actions and events: its field in the body that creates a game
(``SeatKind.api_field``, described by ``request_text``) and the JSON Schemas of the keys it
adds to views (``SeatKind.view_blocks``). :class:`SeatKindSurface` turns the installed kinds'
declarations into the app's ``NewGame`` type (one ``bool | None`` field per kind) and
completes the OpenAPI document with them: the fields, the view blocks, each kind's seat in
``GameConfig`` and ``GameSummary``, the kinds' ids among the values of a seat's ``kind``, and
the descriptions that name the installed kinds. No kind is known here by name.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from darkroad.api.http.schemas import GameSummary
from darkroad.api.http.setup_schemas import NewGame, the
from darkroad.api.http.view_schemas import Caravan, GameConfig, PlayerView
from darkroad.core import TIEBREAKERS, SeatKind, ViewBlock
from darkroad.core.game_setup import solo_kinds

_REF = "#/components/schemas/{name}"
_SEAT = {"type": "integer", "minimum": 0, "maximum": 3}
_VIEWS: dict[str, tuple[str, type[msgspec.Struct]]] = {"player": ("PlayerView", PlayerView),
                                                        "caravan": ("Caravan", Caravan)}
"""Where a view block goes (``ViewBlock.where``): the schema it joins and its struct."""
_SEAT_KIND_OF: dict[str, tuple[str, type[msgspec.Struct]]] = {"GameConfig": ("variants", GameConfig),
                                                               "GameSummary": ("players", GameSummary)}
"""The schemas naming each kind's seat under its id, with the member the kinds' follow."""


class SeatKindSurface:
    """The API surface of the installed seat kinds ``kinds`` (``Engine.seat_kinds``).

    Made once per app: a request field, view key or id that clashes with a member of the
    API's own (or another kind's) raises :class:`ValueError` when the app is created."""

    def __init__(self, kinds: Mapping[str, SeatKind]) -> None:
        self.kinds = tuple(kinds.values())
        self._check()
        fields = [(kind.api_field, Annotated[bool | None, Meta(description=self._field_text(kind))], None)
                  for kind in self.kinds]
        self.new_game: type[NewGame] = msgspec.defstruct(  # type: ignore[assignment]  # a NewGame subclass
            NewGame.__name__, fields, bases=(NewGame,), module=NewGame.__module__,
            namespace={"seat_kinds": self.kinds, "__doc__": NewGame.__doc__}, kw_only=True, forbid_unknown_fields=True,
        )
        """``NewGame`` with the kinds' fields: the body of ``POST /v1/games``."""

    def _check(self) -> None:
        def clash(what: str, names: list[str], taken: set[str]) -> None:
            for name in names:
                if name in taken:
                    raise ValueError(f"a seat kind's {what} {name!r} clashes with a member of the API "
                                     "(or another seat kind's)")
                taken.add(name)

        clash("request field", [kind.api_field for kind in self.kinds], _names(NewGame))
        for schema, (_, struct) in _SEAT_KIND_OF.items():
            clash(f"id (in {schema})", [kind.id for kind in self.kinds], _names(struct))
        for where, (schema, struct) in _VIEWS.items():
            clash(f"view key (in {schema})", [block.key for block in self._blocks(where)], _names(struct))

    def _blocks(self, where: str) -> list[ViewBlock]:
        return [block for kind in self.kinds for block in kind.view_blocks if block.where == where]

    # -- words --------------------------------------------------------------------------------

    def _field_text(self, kind: SeatKind) -> str:
        """The description of a kind's request field: what it does, and where it may be asked for."""
        where = []
        solo = solo_kinds(self.kinds)
        if kind in solo:
            where.append("implied by `players: 1`" if len(solo) == 1 else "with `players: 1`: solo against it")
        fills = [str(n) for n in (3, 4) if n in kind.players]
        if fills:
            where.append(f"allowed with {' or '.join(fills)} players")
        text = kind.request_text or f"Seat {the(kind)} in the last seat"
        return f"{text}: {'; '.join(where)}." if where else f"{text} (no game the API creates has it)."

    def _possessive(self) -> str:
        """Whose seat an automated seat is: "the Peddler's" (one kind), "an automated seat's"."""
        return f"{the(self.kinds[0])}'s" if len(self.kinds) == 1 else "an automated seat's"

    def _ids(self) -> str:
        ids = [f"`{kind.id}`" for kind in self.kinds]
        return ids[0] if len(ids) == 1 else f"a seat kind's id ({', '.join(ids)})"

    def _kind_texts(self) -> dict[str, str]:
        """The descriptions of a seat's ``kind``, by schema."""
        if not self.kinds:
            return {"SeatView": "`human` (a player holds its token), `open` (waiting for a player to join) or `bot`.",
                    "SeatToken": "`human`, `open` (joined later) or `bot`.", "PlayerView": "`human`."}
        opponent = "the automated opponent" if len(self.kinds) == 1 else "an automated opponent"
        return {"SeatView": f"`human` (a player holds its token), `open` (waiting for a player to join), `bot`, "
                            f"or {self._ids()}.",
                "SeatToken": f"`human`, `open` (joined later), `bot`, or {self._ids()} for {opponent}.",
                "PlayerView": f"`human`, or {self._ids()} for {opponent}."}

    def _players_text(self) -> str:
        solo = solo_kinds(self.kinds)
        against = (the(solo[0]) if len(solo) == 1 else
                   f"the one asked for: {' or '.join(map(the, solo))}" if solo else "a seat kind: none is installed")
        if not self.kinds:
            return f"Number of seats: 1 is solo (you against {against})."
        automated = the(self.kinds[0]) if len(self.kinds) == 1 else "an automated seat"
        return f"Number of seats, {automated} included: 1 is solo (you against {against})."

    # -- the document ----------------------------------------------------------------------------

    def complete(self, schemas: dict[str, Any]) -> None:
        """Complete the document's ``schemas`` (msgspec's of :data:`~darkroad.api.http.schemas.MODELS`,
        ``NewGame`` being :attr:`new_game`'s) with the installed kinds."""
        new_game = schemas["NewGame"]["properties"]
        new_game["players"]["description"] = self._players_text()
        seats = new_game["seats"]
        if self.kinds:
            fields = " or ".join(f"`{kind.api_field}: true`" for kind in self.kinds)
            excepted = f"{self._possessive()} excepted (so `players` items, one fewer with {fields})"
        else:
            excepted = "(so `players` items)"
        seats["description"] = seats["description"].replace("the automated seat's excepted", excepted)
        included = f", {self._possessive()} included" if self.kinds else ""
        for schema, (after, _) in _SEAT_KIND_OF.items():
            target = schemas[schema]
            target["properties"]["players"]["description"] = f"Seats{included} (solo: 2)."
            for kind in self.kinds:
                name = the(kind)
                target["properties"][kind.id] = {"anyOf": [dict(_SEAT), {"type": "null"}],
                                                 "description": f"{name[:1].upper()}{name[1:]}'s seat; null without it."}
            at = target["required"].index(after) + 1
            target["required"][at:at] = [kind.id for kind in self.kinds]
        schemas["WaitingGame"]["properties"]["players"]["description"] = f"Seats{included}."
        for schema, text in self._kind_texts().items():
            schemas[schema]["properties"]["kind"]["description"] = text
        seat_kind = schemas["SeatView"]["properties"]["kind"]
        seat_kind["enum"] = sorted({*seat_kind["enum"], *(kind.id for kind in self.kinds)})
        for where, (schema, _) in _VIEWS.items():
            for block in self._blocks(where):
                schemas[schema]["properties"][block.key] = _member(schemas, block)
        self._score(schemas["ScoreLine"])
        if len(self.kinds) == 1:
            self._say_automated(schemas, the(self.kinds[0]))

    def _score(self, score: dict[str, Any]) -> None:
        """The kinds' tie-breakers and score notes in ``ScoreLine``'s descriptions."""
        fewer = [f"with {the(kind)} at the table: by {' and '.join(f'`{t}`' for t in kind.tiebreakers)} only"
                 for kind in self.kinds if tuple(kind.tiebreakers) != TIEBREAKERS]
        if fewer:
            score["description"] = score["description"].replace(
                "`heroes_delivered`;", f"`heroes_delivered` ({'; '.join(fewer)});")
        for name, prop in score["properties"].items():
            notes = "; ".join(f"{the(kind)}: {kind.score_notes[name]}" for kind in self.kinds if name in kind.score_notes)
            if notes:
                text = prop["description"]
                prop["description"] = (f"{text[:-2]}; {notes})." if text.endswith(").")
                                       else f"{text.removesuffix('.')} ({notes}).")

    @staticmethod
    def _say_automated(schemas: dict[str, Any], name: str) -> None:
        """With one seat kind, the descriptions that say "an automated seat" name it."""
        token = schemas["SeatToken"]
        token["description"] = token["description"].replace("automated seats (a seat kind's)", name)
        storage = schemas["PlayerView"]["properties"]["storage"]
        storage["description"] = storage["description"].replace("null for an automated seat", f"null for {name}")


def _names(struct: type[msgspec.Struct]) -> set[str]:
    return {field.encode_name for field in msgspec.structs.fields(struct)}


def _member(schemas: dict[str, Any], block: ViewBlock) -> dict[str, Any]:
    """The document's member for a view block: its schema, a named one when it has a ``title``."""
    schema = copy.deepcopy(dict(block.schema))
    title = schema.get("title")
    if title is None:
        return {**schema, "description": block.description}
    if schemas.get(title, schema) != schema:
        raise ValueError(f"the view block {block.key!r} is titled {title!r}, a schema the document already has")
    schemas[title] = schema
    return {"$ref": _REF.format(name=title), "description": block.description}
