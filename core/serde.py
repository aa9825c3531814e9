"""The one cattrs converter of the state, actions and events, and their JSON form.

The stored blob of a game (:meth:`Serde.pack`: MessagePack; JSON in :meth:`Serde.dumps`)
is written and read by msgspec's native support of attrs classes, several times faster than
cattrs (the blob is read and written on every API request, and copied on every trial of a
greedy bot; docs/performance.md). Decoding is typed: a blob of the wrong shape is refused,
never half-read. The cattrs converter serves everything else (views,
events, actions, replay configs). A client's action is read strictly by hand: exact types,
and an unknown field (a misspelt one) is a clear error rather than a silent no-op.

Stored games of an older ``schema_version`` are read through :func:`upgrade` (tested over blobs
stored by each older version: ``tests/test_stored_state.py``).
"""

from __future__ import annotations

from typing import Any

import attrs
import msgspec
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn
from cattrs.preconf.json import make_converter

from .actions import MAX_DETAILS_LENGTH, MAX_LABEL_LENGTH, MAX_OPTION_LENGTH, MAX_TYPE_LENGTH, Action
from .errors import BadAction
from .state import (
    CONFIG_FIELDS,
    SCHEMA_VERSION,
    Board,
    Caravan,
    Event,
    Game,
    GameConfig,
    Player,
    PoolDie,
    ScoreLine,
    Task,
    Turn,
    json_hook,
    msgpack_hook,
)

_ACTION_FIELDS: dict[str, type] = {"type": str, "seat": int, "option": str, "label": str, "details": str}
"""An action's JSON fields and their exact types (``label`` and ``details`` are optional, and
ignored: an action listed with them is sent back unchanged)."""
_OPTIONAL_FIELDS = frozenset({"label", "details"})
_ACTION_LENGTHS = {"type": MAX_TYPE_LENGTH, "option": MAX_OPTION_LENGTH, "label": MAX_LABEL_LENGTH,
                   "details": MAX_DETAILS_LENGTH}
_encode = msgspec.json.Encoder(enc_hook=json_hook).encode
_decode_game = msgspec.json.Decoder(Game).decode
# A copy goes through MessagePack: the same types back as through JSON (the state is JSON-able
# data), with less to write and parse.
msgpack_encode = msgspec.msgpack.Encoder(enc_hook=msgpack_hook).encode
"""MessagePack of a state or any part of it (what :meth:`Serde.pack` and copies use)."""
_unpack_game = msgspec.msgpack.Decoder(Game).decode
_PLAYER_FIELDS = frozenset(a.name for a in attrs.fields(Player))
_TURN_FIELDS = frozenset(a.name for a in attrs.fields(Turn))
_CARAVAN_FIELDS = frozenset(a.name for a in attrs.fields(Caravan))
MSGPACK_REFUSED = (TypeError, OverflowError, msgspec.EncodeError)
"""What msgspec's MessagePack encoder raises for a value it cannot hold (an integer over 64
bits in a plugin's value, which JSON holds)."""
_PACKED_GAME = frozenset(bytes([b]) for b in (*range(0x80, 0x90), 0xDE, 0xDF))
"""The first byte of a game as MessagePack (a map: fixmap, map 16, map 32); no JSON text
begins with one of them (none is ASCII, and none begins a UTF-8 byte order mark)."""


def _move_unknown(obj: dict[str, Any], known: frozenset[str], into: str) -> dict[str, Any]:
    """``obj`` with its keys that are not in ``known`` moved into the dict ``obj[into]``
    (``null`` ones left out)."""
    unknown = [k for k in obj if k not in known]
    if not unknown:
        return obj
    out = {k: v for k, v in obj.items() if k in known}
    out[into] = {**{k: obj[k] for k in unknown if obj[k] is not None}, **(obj.get(into) or {})}
    return out


def config_from_fields(obj: dict[str, Any]) -> dict[str, Any]:
    """A config as JSON in which keys that are not ``GameConfig`` fields are options: a
    plugin's setting may be given beside the core's (``{"players": 2, "<option>": ...}``)."""
    return _move_unknown(obj, CONFIG_FIELDS, "options")


def upgrade(obj: dict[str, Any]) -> dict[str, Any]:
    """A stored game of an older schema version, as JSON, in the form of this one.

    Version 1 kept a plugin's game settings and seat state (a seat kind's) as config and player
    fields of their own: they move, under the same names, to ``GameConfig.options`` and
    ``Player.extra`` (version 2). Version 2 kept the turn and its caravan as dicts, plugins'
    keys among the engine's: those keys move, under the same names, to the ``extra`` of the
    :class:`Turn` or the :class:`Caravan` (version 3)."""
    version = obj.get("schema_version")
    if version == 1:
        obj = {**obj, "schema_version": 2, "config": config_from_fields(obj["config"]),
               "players": [_move_unknown(p, _PLAYER_FIELDS, "extra") for p in obj.get("players", ())]}
        version = 2
    if version != 2:
        raise ValueError(f"cannot upgrade a stored game of schema_version {obj.get('schema_version')!r}")
    turn = _move_unknown(dict(obj.get("turn") or {}), _TURN_FIELDS, "extra")
    if turn.get("caravan") is not None:
        turn["caravan"] = _move_unknown(turn["caravan"], _CARAVAN_FIELDS, "extra")
    return {**obj, "schema_version": SCHEMA_VERSION, "turn": turn}


def _action_dict(action: Action) -> dict[str, Any]:
    """An action as the JSON object its encoding is (an ``Action`` is a ``msgspec.Struct``)."""
    return {"type": action.type, "seat": action.seat, "option": action.option, "label": action.label}


class Serde:
    def __init__(self) -> None:
        c = make_converter()
        for cls in (Game, GameConfig, Player, Board, Task, PoolDie, ScoreLine, Turn, Caravan):
            c.register_unstructure_hook(cls, make_dict_unstructure_fn(cls, c, _cattrs_omit_if_default=True))
        c.register_unstructure_hook(Action, _action_dict)
        c.register_structure_hook(Action, lambda obj, _: Action(**obj))
        structure_config = make_dict_structure_fn(GameConfig, c)
        c.register_structure_hook(GameConfig, lambda obj, _: structure_config(config_from_fields(obj), GameConfig))
        self.c = c

    def unstructure(self, obj: Any) -> Any:
        return self.c.unstructure(obj)

    def dumps(self, game: Game) -> bytes:
        return _encode(game)

    def pack(self, game: Game) -> bytes:
        """``game`` as MessagePack: smaller than its JSON and faster to write, for a store that
        writes a game on every action. A state MessagePack refuses (an integer over 64 bits in
        a plugin's value) is JSON instead. :meth:`loads` reads both."""
        try:
            return msgpack_encode(game)
        except MSGPACK_REFUSED:
            return _encode(game)

    def loads(self, blob: bytes | str) -> Game:
        packed = isinstance(blob, bytes) and blob[:1] in _PACKED_GAME  # pack()'s (a map), not JSON
        try:
            try:
                game = _unpack_game(blob) if isinstance(blob, bytes) and packed else _decode_game(blob)
            except msgspec.ValidationError:
                game = None  # perhaps an older version's shape: read below
            if game is None or game.schema_version < SCHEMA_VERSION:
                # An older version (read as this version's types, its plugins' keys would be
                # lost): read as plain data, upgrade, then typed.
                obj = msgspec.msgpack.decode(blob) if isinstance(blob, bytes) and packed else msgspec.json.decode(blob)
                version = obj.get("schema_version") if isinstance(obj, dict) else None
                if isinstance(version, int) and version < SCHEMA_VERSION:
                    game = msgspec.convert(upgrade(obj), Game)
                elif game is None:
                    game = msgspec.convert(obj, Game)  # raises the version's own validation error
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise ValueError(f"not a stored game of schema_version {SCHEMA_VERSION}: {exc}") from exc
        assert game is not None  # read typed, or upgraded
        if game.schema_version != SCHEMA_VERSION:
            raise ValueError(f"stored game has schema_version {game.schema_version}, "
                             f"this build reads {SCHEMA_VERSION}")
        return game

    def copy(self, game: Game) -> Game:
        return _unpack_game(msgpack_encode(game))

    def action_from_json(self, obj: Any) -> Action:
        """Structure a client's action, strictly: exact types, no unknown fields."""
        if not isinstance(obj, dict):
            raise BadAction("an action must be a JSON object, got %(type)s @ $", type=type(obj).__name__)
        extra = sorted(set(obj) - _ACTION_FIELDS.keys())
        if extra:
            raise BadAction("unknown field(s) %(fields)s @ $", fields=str(extra))
        for name, typ in _ACTION_FIELDS.items():
            if name not in obj:
                if name not in _OPTIONAL_FIELDS:
                    raise BadAction("required field missing @ $.%(field)s", field=name)
                continue
            value = obj[name]
            if not isinstance(value, typ) or isinstance(value, bool):
                raise BadAction("expected %(type)s @ $.%(field)s", type=typ.__name__, field=name)
            if isinstance(value, str) and len(value) > _ACTION_LENGTHS[name]:
                raise BadAction("longer than %(most)d characters @ $.%(field)s", most=_ACTION_LENGTHS[name], field=name)
        # Every field is checked above: build the action directly (a client's action is
        # structured on every API request).
        return Action(type=obj["type"], seat=obj["seat"], option=obj["option"], label=obj.get("label", ""))

    def action_to_json(self, action: Action) -> dict[str, Any]:
        out: dict[str, Any] = self.c.unstructure(action)
        return out

    def event_to_json(self, event: Event) -> dict[str, Any]:
        out: dict[str, Any] = self.c.unstructure(event)
        return out

    @staticmethod
    def encode(obj: Event | Action) -> bytes:
        """An event or action as JSON text: the same object as ``*_to_json`` gives, encoded
        straight from the attrs instance (not through the converter's dicts)."""
        return _encode(obj)
