"""The small types every body of the API shares: a display name, a seat number, a count, an
instant, an unset member, and a member's description."""

from __future__ import annotations

import datetime
from typing import Annotated

import msgspec
from msgspec import Meta

from darkroad.api.app.lobby import MAX_NAME_LENGTH, NAME_PATTERN

Name = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=MAX_NAME_LENGTH,
        pattern=NAME_PATTERN,
        description=f"A display name, 1 to {MAX_NAME_LENGTH} characters with at least one visible one and no "
        "control character (but in the surrounding whitespace, which is trimmed). Shown to everyone; never a "
        "credential.",
    ),
]
Unset = msgspec.UnsetType
UNSET = msgspec.UNSET


def doc(description: str) -> Meta:
    """A member's description in the document (``Annotated[int, doc("...")]``)."""
    return Meta(description=description)


Seat = Annotated[int, Meta(ge=0, le=3)]
Count = Annotated[int, Meta(ge=0)]
Instant = Annotated[datetime.datetime, Meta(tz=True)]
