"""Fan plugins' events, tagged: the member ``plugin`` tells them from the base installation's.

An event's ``type`` is one of the document's known types (``KnownEvent``: the rules core's, the
built-in plugins' and the lobby's) or any other text (``PluginEvent``). A typed client cannot
tell the two apart by ``type`` alone: no type of TypeScript (or of most languages) is "any
string but these", so ``e.type === "seat_joined"`` would leave ``PluginEvent`` possible. So a
plugin's event carries one more member, ``plugin`` (the fan plugin documenting its type, or
null), which no known event has: ``!("plugin" in e)`` narrows an ``Event`` to ``KnownEvent``,
whose ``type`` then narrows its ``data``. Known events are sent as the engine encodes them.
"""

from __future__ import annotations

import msgspec

from darkroad.api.app import lobby
from darkroad.core import Engine, Event


def known_event_types(engine: Engine) -> frozenset[str]:
    """The event types the document names (``KnownEvent``) for ``engine``: the rules core's, those
    the built-in plugins document (``darkroad_event_types``) and the lobby's. Worked out from
    the engine's event schema: a caller making many payloads works them out once."""
    # The same source as the document's union (``darkroad.api.http.openapi.event_schema``).
    types = [variant["properties"]["type"] for variant in engine.event_schema()["oneOf"]]
    return frozenset({*(t["const"] for t in types if "const" in t), *lobby.EVENTS})


def event_payload(engine: Engine, event: Event, known: frozenset[str]) -> bytes:
    """``event`` as the log and the stream send it: the engine's encoding, with ``plugin`` added
    when its type is a fan plugin's (``known``: :func:`known_event_types` of ``engine``)."""
    payload = engine.encode(event)
    if event.type in known:
        return payload
    owner = engine.event_types.get(event.type)
    tag = msgspec.json.encode({"plugin": owner[0] if owner is not None else None})
    # The engine's encoding is one JSON object: add the member before its closing brace.
    return payload[:-1] + b"," + tag[1:]
