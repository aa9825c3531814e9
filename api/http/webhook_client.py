"""The HTTP client of webhook deliveries (``darkroad.api.app.webhook_delivery`` sends through
it): httpx, the client Litestar already brings, through its public API."""

from __future__ import annotations

import httpx

from darkroad.api.app.webhook_urls import Target
from darkroad.api.settings import Settings

USER_AGENT = "darkroad-webhooks/1"


class WebhookClient:
    """Sends one delivery: to the address checked (``Target``), no redirect followed, no proxy
    from the environment (a proxy would connect elsewhere than the address checked), each
    attempt within ``webhook_timeout`` seconds, the answer's body never read."""

    def __init__(self, settings: Settings, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.timeout = settings.webhook_timeout
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        """Made on the first delivery: its TLS context loads the system's CA bundle (22 ms of CPU),
        which every app start paid, and most processes (and every test app) deliver nothing."""

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                follow_redirects=False,
                trust_env=False,
                timeout=httpx.Timeout(self.timeout),
                headers={"user-agent": USER_AGENT},
                transport=self._transport,
            )
        return self._client

    async def post(self, target: Target, headers: dict[str, str], payload: bytes) -> tuple[int | None, str | None]:
        """POST ``payload`` to ``target``: the receiver's status, or ``None`` and why there is none."""
        # Host names the URL's host (the connection goes to its checked address), and so does
        # TLS's server name (its certificate is checked against it).
        extensions = {"sni_hostname": target.host} if target.url.startswith("https:") else {}
        client = self._http()
        request = client.build_request(
            "POST", target.url, content=payload, headers={**headers, "host": target.netloc}, extensions=extensions
        )
        try:
            response = await client.send(request, stream=True)
            await response.aclose()  # only the status counts, whatever a receiver sends
        except httpx.TimeoutException:
            return None, f"no answer within {self.timeout:g} s"
        except httpx.HTTPError as exc:
            return None, f"{type(exc).__name__}: {exc}"[:200]
        return response.status_code, None if response.is_success else f"answered {response.status_code}"

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
