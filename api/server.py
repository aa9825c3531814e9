"""The HTTP server of ``darkroad serve``: uvicorn, with its own errors as problem details.

uvicorn answers a request it cannot parse (a malformed request line or header, an invalid
``Content-Length``) itself, before the app sees it, with a ``text/plain`` 400. Every error
of this API is ``application/problem+json``, so :class:`HttpProtocol` (uvicorn's httptools
protocol, passed as ``http=``, the documented way to choose the protocol class) sends the
same 400 as a problem details object.
"""

from __future__ import annotations

import msgspec
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from darkroad.api.problems import PROBLEM_MEDIA_TYPE, PROBLEM_TYPES, ProblemDetails


def problem_bytes(code: str, detail: str) -> bytes:
    """A problem details body of type ``code`` (no ``instance``: the request was not understood)."""
    problem = PROBLEM_TYPES[code]
    return msgspec.json.encode(
        ProblemDetails(type=problem.code, title=problem.title, status=problem.status, detail=detail)
    )


def raw_problem_response(code: str, detail: str, default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """A whole HTTP/1.1 response carrying a problem, closing the connection."""
    problem = PROBLEM_TYPES[code]
    body = problem_bytes(code, detail)
    reason = problem.title.encode()
    head = [b"HTTP/1.1 %d %s\r\n" % (problem.status, reason)]
    head += [name + b": " + value + b"\r\n" for name, value in default_headers]
    head += [
        b"content-type: " + PROBLEM_MEDIA_TYPE.encode() + b"\r\n",
        b"content-length: %d\r\n" % len(body),
        b"connection: close\r\n",
        b"\r\n",
    ]
    return b"".join(head) + body


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol whose own 400s are problem details."""

    def send_400_response(self, msg: str) -> None:
        self.transport.write(raw_problem_response("bad-request", msg, self.server_state.default_headers))
        self.transport.close()
