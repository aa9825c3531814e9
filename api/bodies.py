"""Request bodies and headers: JSON read strictly, with JSON Schema's idea of an integer.

Bodies are decoded here rather than by Litestar, whose decoding coerces types (it would
take ``"2"`` for ``2``, which the documented schema forbids). JSON itself has one number
type, and JSON Schema counts ``4.0`` as an integer, so integral numbers written with a
fraction or exponent are read as integers.
"""

from __future__ import annotations

from typing import Any, TypeVar, cast

import msgspec
from litestar.types import HTTPRequestEvent, Receive, Scope

from darkroad.api.problems import PROBLEM_TYPES, Problem

T = TypeVar("T")


def _number(literal: str) -> int | float:
    value = float(literal)
    return int(value) if value.is_integer() else value


_decoder = msgspec.json.Decoder(float_hook=_number)


def parse_json(body: bytes) -> Any:
    """``body`` as JSON (``bad-request`` when it is not JSON)."""
    try:
        return _decoder.decode(body)
    except msgspec.DecodeError as exc:
        raise Problem("bad-request", f"The body is not JSON: {exc}") from None


def parse_model(body: bytes, model: type[T]) -> T:
    """``body`` as a ``model`` struct, strictly (``bad-request`` otherwise)."""
    try:
        return msgspec.convert(parse_json(body), model, strict=True)
    except msgspec.ValidationError as exc:
        raise Problem("bad-request", f"Invalid body: {exc}") from None


def raw_headers(scope: Scope) -> dict[str, str]:
    """The request's headers by lower-case name (the first of a repeated header), read from
    the ASGI scope without building Litestar's ``Headers``."""
    headers: dict[str, str] = {}
    for name, value in scope["headers"]:
        headers.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return headers


async def read_body(receive: Receive, content_length: str | None, limit: int) -> bytes:
    """The whole request body, at most ``limit`` bytes (``body-too-large`` beyond).

    A declared ``Content-Length`` over the limit is refused before reading; a body sent
    in chunks is counted as it arrives. Litestar's ``Request.body()`` does the same for
    the routes that use it.
    """
    if content_length is not None:
        try:
            declared = int(content_length)
        except ValueError:
            raise Problem("bad-request", f"Invalid Content-Length: {content_length!r}") from None
        if declared > limit:
            raise _too_large()
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Problem("bad-request", "The client disconnected before sending the whole body.")
        chunk = cast("HTTPRequestEvent", message).get("body", b"")  # not a disconnect: a request message
        if chunk:
            size += len(chunk)
            if size > limit:
                raise _too_large()
            chunks.append(chunk)
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _too_large() -> Problem:
    return Problem("body-too-large", PROBLEM_TYPES["body-too-large"].description)
