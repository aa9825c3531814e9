"""Which webhook URLs the service sends to: the checks against server-side request forgery.

A webhook makes the server send requests to an address a client chose; without checks a
client could have it reach what only the server can (a cloud's metadata service at
``169.254.169.254``, an admin port on localhost, the Redis next door). So a receiver's URL
must be ``http(s)``, carry no credentials, and its host must be, and resolve only to,
public addresses: not loopback, private, link-local, multicast, unspecified or reserved, in
IPv4 or IPv6 (IPv4 addresses hidden in IPv6 ones, ``::ffff:10.0.0.1``, are looked at too).

The check is made twice: when a seat subscribes (:func:`check_url`, refusing with
``422 bad-webhook-url``), and at every delivery against the address the request then
connects to (:func:`resolve_target`): a name may resolve elsewhere later (DNS rebinding),
so the delivery resolves it itself, checks the address and connects to that address (the
``Host`` header and TLS's server name still the URL's host). No redirect is followed.

``DARKROAD_WEBHOOK_ALLOW_PRIVATE=1`` (``Settings.webhook_allow_private``) lets loopback and
private receivers through, for development and tests only (deploy/README.md): on a public
server it lets any client reach the server's own network.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import urllib.parse
from dataclasses import dataclass

from darkroad.api.app.service_errors import ServiceError

MAX_URL_LENGTH = 2048
RESOLVE_TIMEOUT = 3.0
"""Seconds a host's name may take to resolve (a subscription's request, a delivery): then refused."""
SCHEMES = ("http", "https")
IP = ipaddress.IPv4Address | ipaddress.IPv6Address


def refused(detail: str) -> ServiceError:
    """``bad-webhook-url`` (422): the URL is not one the service sends to."""
    return ServiceError("bad-webhook-url", detail)


def address_class(address: IP) -> str | None:
    """Why a receiver may not be at ``address`` (``loopback``, ``private``, ``link-local``,
    ``multicast``, ``unspecified``, ``reserved``, ``not global``); ``None``: a public address.
    An IPv6 address carrying an IPv4 one (mapped, 6to4, Teredo) is judged by both."""
    inner: list[IP] = [address]
    if isinstance(address, ipaddress.IPv6Address):
        for embedded in (address.ipv4_mapped, address.sixtofour, address.teredo[1] if address.teredo else None):
            if embedded is not None:
                inner.append(embedded)
    for one in inner:
        for name, found in (
            ("unspecified", one.is_unspecified),
            ("loopback", one.is_loopback),
            ("link-local", one.is_link_local),
            ("multicast", one.is_multicast),
            ("reserved", one.is_reserved),
            ("private", one.is_private),
            ("not global", not one.is_global),  # shared address space (100.64/10), documentation ranges
        ):
            if found:
                return name
    return None


ALLOWED_WHEN_PRIVATE = frozenset({"loopback", "private", "not global"})
"""The classes ``webhook_allow_private`` lets through (never link-local: cloud metadata)."""


def allowed(address: IP, allow_private: bool) -> str | None:
    """Why ``address`` is refused as a receiver's, or ``None`` when it is allowed."""
    found = address_class(address)
    if found is None or (allow_private and found in ALLOWED_WHEN_PRIVATE):
        return None
    return found


@dataclass(frozen=True, slots=True)
class Target:
    """Where a delivery connects: the URL with its host replaced by the checked address, and
    the URL's own ``host[:port]``, which the request names (``Host``, and TLS's server name
    for ``https``)."""

    url: str
    host: str
    netloc: str
    address: IP


@dataclass(frozen=True, slots=True)
class Parsed:
    """A URL split as a delivery needs it."""

    scheme: str
    host: str
    port: int
    netloc: str
    rest: str
    """The path, query and all after the host."""

    def __str__(self) -> str:
        return f"{self.scheme}://{self.netloc}{self.rest}"


def parse(url: str) -> Parsed:
    """``url`` parsed, or ``bad-webhook-url`` when it is malformed, not ``http(s)`` or carries
    credentials (checks needing no name resolution)."""
    if len(url) > MAX_URL_LENGTH:
        raise refused(f"The URL is longer than {MAX_URL_LENGTH} characters.")
    if any(ord(char) < 0x21 or ord(char) == 0x7F or char in "\\<>\"{}|^`" for char in url):
        raise refused("The URL is malformed: it contains whitespace, control or unsafe characters.")
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
        host = parts.hostname
    except ValueError as exc:
        raise refused(f"The URL is malformed ({exc}).") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise refused(f"The URL's scheme must be http or https, not {parts.scheme or 'none'!r}.")
    if "@" in parts.netloc:
        raise refused("The URL carries credentials (user:password@): put a secret in its path or query, "
                      "and verify the signature instead.")
    if not host:
        raise refused("The URL is malformed: it has no host.")
    if port is not None and not 0 < port < 65536:
        raise refused(f"The URL is malformed: port {port} is not one of 1 to 65535.")
    if parts.fragment:
        raise refused("The URL is malformed: a fragment is never sent to a server.")
    if literal(host) is None:
        try:  # a name: each label a valid IDNA one
            host = host.encode("idna").decode("ascii").lower()
        except UnicodeError as exc:
            raise refused(f"The URL's host is malformed ({exc}).") from None
    rest = parts.path or "/"
    if parts.query:
        rest += f"?{parts.query}"
    default = 443 if scheme == "https" else 80
    shown = f"[{host}]" if ":" in host else host
    netloc = shown if port in (None, default) else f"{shown}:{port}"
    return Parsed(scheme, host, port or default, netloc, rest)


def literal(host: str) -> IP | None:
    """The address ``host`` spells, if it is one (``None``: a name)."""
    try:
        return ipaddress.ip_address(host.strip("[]").partition("%")[0])
    except ValueError:
        return None


async def resolve(host: str, port: int) -> list[IP]:
    """Every address ``host`` resolves to (``bad-webhook-url`` when it resolves to none)."""
    found = literal(host)
    if found is not None:
        return [found]
    loop = asyncio.get_running_loop()
    try:
        infos = await asyncio.wait_for(loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), RESOLVE_TIMEOUT)
    except TimeoutError:
        raise refused(f"The URL's host {host!r} does not resolve within {RESOLVE_TIMEOUT:g} s.") from None
    except (OSError, UnicodeError) as exc:
        raise refused(f"The URL's host {host!r} does not resolve ({exc}).") from None
    addresses: list[IP] = []
    for family, _, _, _, sockaddr in infos:
        if family in (socket.AF_INET, socket.AF_INET6):
            address = ipaddress.ip_address(str(sockaddr[0]).partition("%")[0])
            if address not in addresses:
                addresses.append(address)
    if not addresses:
        raise refused(f"The URL's host {host!r} resolves to no IP address.")
    return addresses


async def resolve_target(url: str, allow_private: bool) -> Target:
    """Where a request to ``url`` may go: every address its host resolves to is checked (one
    refused refuses the URL: a name may not point now here, now there), and the request
    connects to the first, by address. ``bad-webhook-url`` when refused."""
    parsed = parse(url)
    addresses = await resolve(parsed.host, parsed.port)
    for address in addresses:
        reason = allowed(address, allow_private)
        if reason is not None:
            shown = "" if literal(parsed.host) is not None else f" (it resolves to {address})"
            raise refused(f"The URL's host {parsed.host!r} is a {reason} address{shown}: the service sends to "
                          "public addresses only.")
    address = addresses[0]
    host = f"[{address}]" if isinstance(address, ipaddress.IPv6Address) else str(address)
    return Target(f"{parsed.scheme}://{host}:{parsed.port}{parsed.rest}", parsed.host, parsed.netloc, address)


async def check_url(url: str, allow_private: bool) -> str:
    """``url`` as a subscription keeps it, once checked (``bad-webhook-url`` when refused)."""
    await resolve_target(url, allow_private)
    return str(parse(url))
