"""A game's events as its Redis stream keeps them: event ``n`` under stream id ``0-(n+1)``, its
audience (``*``: everyone, else the seats, comma-separated) in field ``a``, its payload in ``e``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from darkroad.api.store.base import StoredEvent

_EVERYONE = "*"


def stream_id(n: int) -> str:
    """The stream id of event ``n``."""
    # Stream ids must be greater than 0-0, so event n is stored under 0-(n+1).
    return f"0-{n + 1}"


def event_n(stream_id: bytes) -> int:
    """The event number of a stream id."""
    return int(stream_id.partition(b"-")[2]) - 1


def _audience(audience: frozenset[int] | None) -> str:
    if audience is None:
        return _EVERYONE
    return ",".join(str(seat) for seat in sorted(audience))


def _decode_audience(raw: bytes) -> frozenset[int] | None:
    if raw == _EVERYONE.encode():
        return None
    return frozenset(int(seat) for seat in raw.split(b",") if seat)


def event_texts(events: Sequence[StoredEvent]) -> list[str]:
    """Each event's stream id and audience, in pairs: ``create.lua`` and ``commit.lua`` take them
    among their short texts (one MessagePack argument) and each payload as an argument of its own."""
    texts: list[str] = []
    for event in events:
        texts += [stream_id(event.n), _audience(event.audience)]
    return texts


def decode_entries(entries: Sequence[tuple[bytes, dict[bytes, bytes]]]) -> list[StoredEvent]:
    """Stream entries as redis-py parses them (``(id, {field: value})``)."""
    return [
        StoredEvent(n=event_n(entry_id), audience=_decode_audience(fields[b"a"]), payload=fields[b"e"])
        for entry_id, fields in entries
    ]


def decode_raw_entries(entries: Sequence[Sequence[Any]]) -> list[StoredEvent]:
    """Stream entries as Redis sends them (``[id, [field, value, ...]]``)."""
    decoded = []
    for entry_id, flat in entries:
        fields = dict(zip(flat[::2], flat[1::2], strict=True))
        decoded.append(StoredEvent(event_n(entry_id), _decode_audience(fields[b"a"]), fields[b"e"]))
    return decoded
