"""Request bodies: JSON read strictly, with JSON Schema's idea of an integer.

Bodies are decoded here rather than by Litestar, whose decoding coerces types (it would
take ``"2"`` for ``2``, which the documented schema forbids). JSON itself has one number
type, and JSON Schema counts ``4.0`` as an integer, so integral numbers written with a
fraction or exponent are read as integers.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from darkroad.api.problems import Problem

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
