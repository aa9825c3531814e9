"""Request bodies and headers: JSON read strictly, with JSON Schema's idea of an integer.

Bodies are decoded here rather than by Litestar, whose decoding coerces types (it would
take ``"2"`` for ``2``, which the documented schema forbids). JSON itself has one number
type, and JSON Schema counts ``4.0`` as an integer, so integral numbers written with a
fraction or exponent are read as integers.

Whatever a client sends, reading it ends in a value or a 4xx problem, never an exception
the server did not expect: a body must be declared ``application/json`` (415 otherwise,
so that no web page can make a browser post one without a CORS preflight), be UTF-8,
nest at most :data:`MAX_JSON_DEPTH` levels (the decoder recurses, so a 2 KB body of
brackets would otherwise exhaust the stack), and arrive within the body timeout.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar, cast

import msgspec
from litestar.types import HTTPRequestEvent, Receive, Scope

from darkroad.api.http.problems import PROBLEM_TYPES, Problem
from darkroad.core import Action
from darkroad.core.actions import MAX_DETAILS_LENGTH, MAX_LABEL_LENGTH, MAX_OPTION_LENGTH, MAX_TYPE_LENGTH
from darkroad.core.i18n import N_

T = TypeVar("T")


def _number(literal: str) -> int | float:
    value = float(literal)
    return int(value) if value.is_integer() else value


_decoder = msgspec.json.Decoder(float_hook=_number)

MAX_JSON_DEPTH = 32
"""Deepest nesting of arrays and objects accepted in a request body (the API's own bodies
nest two levels)."""
_STRUCTURE = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
"""A JSON string (skipped whole: brackets inside it do not nest) or a bracket."""
_OPENING = frozenset(b"[{")


def too_deep(body: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``body`` nests arrays and objects more than ``limit`` levels deep.

    A body with at most ``limit`` opening brackets cannot (two C-speed counts: every
    ordinary body); otherwise its brackets are followed outside strings.
    """
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    depth = 0
    for match in _STRUCTURE.finditer(body):
        first = body[match.start()]
        if first in _OPENING:
            depth += 1
            if depth > limit:
                return True
        elif first != 0x22:  # a closing bracket (0x22 is the quote opening a string)
            depth -= 1
    return False


def parse_json(body: bytes) -> Any:
    """``body`` as JSON (``bad-request`` when it is not JSON, not UTF-8 or nested too deep)."""
    if too_deep(body):
        raise Problem("bad-request", "The body nests arrays and objects deeper than %(depth)d levels.", depth=MAX_JSON_DEPTH)
    try:
        return _decoder.decode(body)
    except msgspec.DecodeError as exc:
        raise Problem("bad-request", "The body is not JSON: %(reason)s", reason=str(exc)) from None
    except UnicodeDecodeError as exc:  # msgspec checks UTF-8 inside strings with Python's codec
        raise Problem("bad-request", "The body is not UTF-8: %(reason)s at byte %(at)d.", reason=exc.reason,
                      at=exc.start) from None
    except RecursionError:  # unreachable below MAX_JSON_DEPTH; kept as a last guard
        raise Problem("bad-request", "The body nests too deep.") from None


def require_json(content_type: str | None) -> None:
    """``unsupported-media-type`` (415) unless ``Content-Type`` is ``application/json``
    (parameters allowed; a ``charset`` must be UTF-8, the only encoding of JSON)."""
    if content_type == "application/json":
        return
    if content_type is not None:
        media_type, _, parameters = content_type.partition(";")
        if media_type.strip().lower() == "application/json" and _utf8(parameters):
            return
    raise Problem(
        "unsupported-media-type",
        "The body must be sent as `Content-Type: application/json`, not %(given)s.", given=repr(content_type),
    )


def _utf8(parameters: str) -> bool:
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            return False
    return True


class _ActionBody(msgspec.Struct, forbid_unknown_fields=True):
    """An action's body as clients send it: the fields of ``Engine.action_from_json``, each text
    at most its longest (checked by msgspec as it decodes: a longer one fails the decode)."""

    type: Annotated[str, msgspec.Meta(max_length=MAX_TYPE_LENGTH)]
    seat: int
    option: Annotated[str, msgspec.Meta(max_length=MAX_OPTION_LENGTH)]
    label: Annotated[str, msgspec.Meta(max_length=MAX_LABEL_LENGTH)] = ""
    details: Annotated[str, msgspec.Meta(max_length=MAX_DETAILS_LENGTH)] = ""


_decode_action = msgspec.json.Decoder(_ActionBody).decode


def parse_action(body: bytes, general: Callable[[Any], Action]) -> Action:
    """The action in ``body``: a well-formed one decoded straight into its fields, anything
    else (and any doubt) through :func:`parse_json` and ``general`` (``Engine.action_from_json``),
    which accept the same actions and say what is wrong with the others.

    Acting is the request clients make most: the typed decode skips the depth scan, the
    intermediate dict and the field-by-field checks.
    """
    try:
        fast = _decode_action(body)
    except (msgspec.DecodeError, UnicodeDecodeError):  # (a field too long: msgspec's ValidationError, a DecodeError)
        fast = None
    if fast is not None:
        return Action(fast.type, fast.seat, fast.option, fast.label)
    return general(parse_json(body))


def parse_model(body: bytes, model: type[T]) -> T:
    """``body`` as a ``model`` struct, strictly (``bad-request`` otherwise, whose ``errors``
    say where, as they do for a parameter)."""
    try:
        return msgspec.convert(parse_json(body), model, strict=True)
    except msgspec.ValidationError as exc:
        # msgspec's own words ("Expected `int`, got `str` - at `$.players`"): English in every language.
        raise invalid_body([body_error(str(exc))], N_("Invalid body: %(reasons)s"), reasons=str(exc)) from None


_AT = re.compile(r"^(?P<message>.*) - at `\$(?P<path>[^`]*)`$", re.DOTALL)


def body_error(message: str, key: str | None = None) -> dict[str, str]:
    """One item of a ``bad-request``'s ``errors`` about the body: msgspec's ``message``
    ("Expected `int` <= 4 - at `$.players`") split into the message and the ``key``
    (``players``; ``seats[0].kind``; none for the whole body), or ``key`` as given."""
    match = _AT.match(message) if key is None else None
    if match is not None:
        message, key = match["message"], match["path"].removeprefix(".") or None
    return {"message": message, "source": "body", **({"key": key} if key else {})}


def invalid_body(errors: list[dict[str, str]], detail: str, **params: Any) -> Problem:
    """``bad-request`` for a body outside its schema, listing each of ``errors``; ``detail`` with
    its placeholders' ``params``."""
    return Problem("bad-request", detail, extra={"errors": errors}, **params)


_READ = "darkroad.headers"
"""The scope's key of the headers :func:`raw_headers` read (an extension key, as ASGI allows)."""


def raw_headers(scope: Scope) -> Mapping[bytes, bytes]:
    """The request's headers by lower-case name, as bytes (the first of a repeated header), read
    from the ASGI scope without building Litestar's ``Headers`` (decode a value with :func:`text`).

    Read once a request and kept in its scope, as Litestar keeps the ``Headers`` it builds in the
    connection's state: the policy layer reads it first (the token, the language), the action's
    route and its handler reuse it. Names in lower case, as ASGI servers send them (uvicorn's), are
    taken as they are, in one dictionary made in C (reversed: a repeated header's first value is
    the one kept); names in any other case are lowered one by one."""
    read = cast("Mapping[bytes, bytes] | None", scope.get(_READ))
    if read is not None:
        return read
    pairs = scope["headers"]
    headers = dict(reversed(pairs if isinstance(pairs, list) else list(pairs)))
    if not b"".join(headers).islower():  # an upper-case letter in a name (or no name at all)
        headers = {}
        for name, value in pairs:
            headers.setdefault(bytes(name).lower(), value)
    scope[_READ] = headers  # type: ignore[literal-required]
    return headers


def text(value: bytes | None) -> str | None:
    """A header's value as Litestar's ``Headers`` gives it (Latin-1), or ``None``."""
    return None if value is None else value.decode("latin-1")


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
            raise Problem("bad-request", "Invalid Content-Length: '%(given)s'", given=content_length) from None
        if declared > limit:
            raise _too_large()
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Problem("bad-request", "The client disconnected before sending the whole body.")
        request: HTTPRequestEvent = message  # type: ignore[assignment]  # not a disconnect: a request message
        chunk = request.get("body", b"")
        if chunk:
            size += len(chunk)
            if size > limit:
                raise _too_large()
            chunks.append(chunk)
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _too_large() -> Problem:
    return Problem("body-too-large", PROBLEM_TYPES["body-too-large"].description)
