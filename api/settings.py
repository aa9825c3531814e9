"""Runtime settings of the API service, read once at start-up."""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field

DAY = 24 * 60 * 60
REDIS_MODES = ("standalone", "cluster", "sentinel")


@dataclass(frozen=True, kw_only=True, slots=True)
class Settings:
    """Everything :func:`darkroad.api.http.app.create_app` needs to know about its deployment.

    Every API process of one deployment must use the same store; nothing else is shared.
    """

    redis_url: str | None = None
    """``redis://`` / ``rediss://`` / ``unix://`` URL of the store; ``None`` keeps games in
    this process's memory (a single process only, games lost on exit). In ``cluster`` mode
    it names one or more seed nodes, in ``sentinel`` mode the Sentinels (comma separated:
    ``redis://host1:26379,host2:26379``)."""
    redis_mode: str = "standalone"
    """``standalone`` (one Redis), ``cluster`` (Redis Cluster) or ``sentinel`` (the primary
    the Sentinels name, followed through failovers)."""
    redis_service: str | None = None
    """``sentinel`` mode: the name the Sentinels monitor the primary under."""
    redis_username: str | None = None
    """The Redis user (ACL) the service connects as; ``None``: the URL's, or the default user."""
    redis_password: str | None = field(default=None, repr=False)
    """That user's password; ``None``: the URL's, if any. Read from the environment
    (``DARKROAD_REDIS_PASSWORD``, or a file named by ``DARKROAD_REDIS_PASSWORD_FILE``), so
    that it stays out of URLs, command lines and logs."""
    redis_sentinel_username: str | None = None
    """``sentinel`` mode: the user the service logs in to the Sentinels as, when they require
    one (``None``: the Sentinels are asked without logging in). The URL's and
    ``redis_username``'s credentials are the primary's."""
    redis_sentinel_password: str | None = field(default=None, repr=False)
    """``sentinel`` mode: the Sentinels' password for that user (or their ``requirepass``);
    from ``DARKROAD_REDIS_SENTINEL_PASSWORD`` or a file named by
    ``DARKROAD_REDIS_SENTINEL_PASSWORD_FILE``."""
    redis_max_connections: int = 64
    """Redis connections for requests, per process and Redis primary (a request waits up to
    ``redis_timeout`` for a free one)."""
    redis_wait_replicas: int = 0
    """Replicas that must confirm each write (``WAIT``) before it is acknowledged; 0: none."""
    redis_wait_timeout: float = 1.0
    """Seconds a write waits for those replicas; then the answer is ``503 replication-timeout``."""
    redis_retry_window: float = 2.0
    """Seconds a request keeps sending a command again while Redis fails over, restarts or
    moves slots, before it answers ``503 store-unavailable``."""
    redis_timeout: float = 5.0
    """Seconds a request waits for Redis (a free connection, a new connection, a reply); a
    hung Redis is answered ``503 store-unavailable`` within twice this plus ``redis_retry_window``."""
    max_event_streams: int = 1024
    """Event streams (``GET .../stream``) open at once per process, each holding a Redis
    connection while it waits; more are answered ``503 too-many-streams`` before the stream starts."""
    max_event_streams_per_client: int = 32
    """Event streams one client address may hold open at once per process (streams need no
    token, so without it one client could take every slot); more are answered 503 as well."""
    exclude_plugins: tuple[str, ...] = ()
    """Entry-point names of ``darkroad`` plugins not to load."""
    strict_plugins: bool = False
    """Refuse to start when a plugin fails to load (default: skip it, with a log line)."""
    request_max_body_size: int = 64 * 1024
    """Largest accepted request body in bytes; larger bodies get ``413``."""
    request_timeout: float = 10.0
    """Seconds a client may take to send a whole request, head and body, from its first byte
    (or from connecting); then ``408 request-timeout`` and the connection is closed (slow-loris)."""
    active_game_ttl: int = 30 * DAY
    """Seconds an unfinished game is kept after its last action (abandoned games expire)."""
    finished_game_ttl: int = 7 * DAY
    """Seconds a finished game (its view, log and score) is kept after its last action."""
    idempotency_ttl: int = DAY
    """Seconds the first result of a request with an ``Idempotency-Key`` is remembered."""
    waiting_game_ttl: int = DAY
    """Seconds a game waiting for players is kept after its creation (joining does not extend
    it); once every seat is taken, ``active_game_ttl`` applies."""
    bot_move_timeout: float = 30.0
    """Seconds a bot may think over one move. A bot still thinking then (a fan's bot that hangs)
    is given up: the first legal action stands in for its move, as for a bot that fails, and the
    bot worker's process that thinks for it is killed (a new one replaces it), so that the other
    games' bots go on."""
    bots: int = 1
    """Bot workers run inside each ``darkroad serve`` process (``--bots``): 1 plays the bots of a
    single machine with no second command; 0 for deployments running ``darkroad bots`` apart."""
    bot_concurrency: int = 1
    """Jobs a bot worker plays at once, each in a process of its pool (``--concurrency``)."""
    bot_claim_timeout: float = 30.0
    """Seconds a bot job may stay taken and unacknowledged before another worker claims it
    (its worker died); more than ``bot_move_timeout``, or a slow bot's jobs would be claimed
    while it thinks."""
    bot_backlog_warning: float = 10.0
    """A worker logs a warning when the oldest bot job waiting is older than this (seconds):
    no worker takes the jobs (none running, or too few)."""
    bot_shards: int = 16
    """Redis Cluster: the shards of bot jobs and turn clocks (``darkroad.api.store.redis_store``)."""
    commit_attempts: int = 8
    """How often an action without ``If-Match`` is re-applied to a newer version before the
    request gives up with ``409 stale-version`` (heavy contention only)."""
    game_cache_size: int = 2048
    """Decoded games kept per process, so consecutive requests skip decoding the state."""
    stream_heartbeat: float = 15.0
    """Seconds between keep-alive comments on an idle event stream."""
    stream_max_duration: float = 600.0
    """Seconds after which the server closes an event stream (clients resume with
    ``Last-Event-ID``, as ``EventSource`` does by itself)."""
    log_max_wait: float = 30.0
    """Longest wait of a long poll (``GET .../log?wait=S``: a larger ``S`` waits this long)."""
    rate_limit_window: float = 60.0
    """Seconds of the sliding window the rate limits count in."""
    rate_limit_requests: int = 6000
    """Requests per window and client address (probes excepted, game creation counted
    apart); more are answered ``429 rate-limited``. 0: no limit."""
    rate_limit_creates: int = 60
    """Games created and seats joined (``POST .../seats/{seat}/join``) per window and client
    address. 0: no limit."""
    rate_limit_auth_failures: int = 30
    """Failed authentications (a ``401`` to a request with a token) per window and client
    address; past it, requests with a token are answered 429 until the window slides. 0: no limit."""
    trusted_proxies: str = "127.0.0.1"
    """Comma-separated addresses or networks of the reverse proxies whose
    ``X-Forwarded-For`` names the client (``*``: any peer; only if nothing else can reach
    the server). Rate limits count per client address, so this must name the proxy in front."""
    metrics_token: str | None = field(default=None, repr=False)
    """When set, ``GET /metrics`` answers only requests with ``Authorization: Bearer <token>``."""
    webhook_allow_private: bool = False
    """Let webhooks reach loopback and private addresses (``DARKROAD_WEBHOOK_ALLOW_PRIVATE=1``):
    for development and tests only. On a public server it lets any client make the server
    send requests into its own network (deploy/README.md)."""
    webhook_timeout: float = 5.0
    """Seconds a webhook receiver has to answer a delivery; then it counts as failed."""
    webhook_first_retry: float = 5.0
    """Seconds before a failed delivery is tried again the first time; each later wait doubles."""
    webhook_max_interval: float = 3600.0
    """The longest wait between two attempts to deliver a message (seconds)."""
    webhook_retry_for: float = DAY
    """Seconds a message is tried for (from when it was made) before it is given up."""
    webhook_concurrency: int = 16
    """Deliveries a worker makes at once (each waits on its receiver, not on the CPU)."""
    webhook_claim_timeout: float = 60.0
    """Seconds a message may stay taken, unacknowledged and not kept by its worker (a live worker
    keeps the messages it is delivering, at least every second) before another worker claims it
    and sends it again (its worker was killed). Independent of ``webhook_timeout``."""
    public_url: str | None = None
    """The service's public URL (``https://darkroad.example``): webhook messages then link to the
    table with an absolute URL (else the path, ``/play/<id>``)."""

    def __post_init__(self) -> None:
        positive = {
            "redis_max_connections": self.redis_max_connections,
            "redis_timeout": self.redis_timeout,
            "max_event_streams": self.max_event_streams,
            "max_event_streams_per_client": self.max_event_streams_per_client,
            "request_max_body_size": self.request_max_body_size,
            "request_timeout": self.request_timeout,
            "active_game_ttl": self.active_game_ttl,
            "finished_game_ttl": self.finished_game_ttl,
            "idempotency_ttl": self.idempotency_ttl,
            "waiting_game_ttl": self.waiting_game_ttl,
            "bot_move_timeout": self.bot_move_timeout,
            "bot_concurrency": self.bot_concurrency,
            "bot_claim_timeout": self.bot_claim_timeout,
            "bot_backlog_warning": self.bot_backlog_warning,
            "bot_shards": self.bot_shards,
            "commit_attempts": self.commit_attempts,
            "game_cache_size": self.game_cache_size,
            "stream_heartbeat": self.stream_heartbeat,
            "stream_max_duration": self.stream_max_duration,
            "log_max_wait": self.log_max_wait,
            "redis_wait_timeout": self.redis_wait_timeout,
            "redis_retry_window": self.redis_retry_window,
            "rate_limit_window": self.rate_limit_window,
            "webhook_timeout": self.webhook_timeout,
            "webhook_first_retry": self.webhook_first_retry,
            "webhook_max_interval": self.webhook_max_interval,
            "webhook_retry_for": self.webhook_retry_for,
            "webhook_concurrency": self.webhook_concurrency,
            "webhook_claim_timeout": self.webhook_claim_timeout,
        }
        for name, value in positive.items():
            if value <= 0:
                raise ValueError(f"Settings.{name} must be positive, got {value!r}")
        if self.bots < 0:
            raise ValueError(f"Settings.bots must be 0 or more, got {self.bots!r}")
        if self.redis_wait_replicas < 0:
            raise ValueError(f"Settings.redis_wait_replicas must be 0 or more, got {self.redis_wait_replicas!r}")
        if self.redis_mode not in REDIS_MODES:
            raise ValueError(f"Settings.redis_mode must be one of {', '.join(REDIS_MODES)}, got {self.redis_mode!r}")
        for name in ("rate_limit_requests", "rate_limit_creates", "rate_limit_auth_failures"):
            if getattr(self, name) < 0:
                raise ValueError(f"Settings.{name} must be 0 (no limit) or positive, got {getattr(self, name)!r}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Settings from ``DARKROAD_*`` environment variables, then ``overrides`` on top.

        Recognised: ``DARKROAD_REDIS_URL``, ``DARKROAD_REDIS_MODE``, ``DARKROAD_REDIS_SERVICE``,
        ``DARKROAD_REDIS_MAX_CONNECTIONS``, ``DARKROAD_REDIS_WAIT_REPLICAS``,
        ``DARKROAD_REDIS_WAIT_TIMEOUT``, ``DARKROAD_REDIS_RETRY_WINDOW``, ``DARKROAD_REDIS_TIMEOUT``
        (seconds), ``DARKROAD_MAX_EVENT_STREAMS``, ``DARKROAD_MAX_EVENT_STREAMS_PER_CLIENT``,
        ``DARKROAD_EXCLUDE_PLUGINS`` (comma separated), ``DARKROAD_STRICT_PLUGINS`` (1/true),
        ``DARKROAD_MAX_BODY_SIZE`` (bytes), ``DARKROAD_REQUEST_TIMEOUT`` (seconds), ``DARKROAD_ACTIVE_GAME_TTL``,
        ``DARKROAD_FINISHED_GAME_TTL``, ``DARKROAD_IDEMPOTENCY_TTL``, ``DARKROAD_WAITING_GAME_TTL``,
        ``DARKROAD_BOT_MOVES_PER_REQUEST``, ``DARKROAD_BOT_TIME_PER_REQUEST``, ``DARKROAD_BOT_MOVE_TIMEOUT``,
        ``DARKROAD_STREAM_HEARTBEAT``, ``DARKROAD_STREAM_MAX_DURATION``, ``DARKROAD_LOG_MAX_WAIT`` (seconds),
        ``DARKROAD_RATE_LIMIT_WINDOW`` (seconds), ``DARKROAD_RATE_LIMIT_REQUESTS``,
        ``DARKROAD_RATE_LIMIT_CREATES``, ``DARKROAD_RATE_LIMIT_AUTH_FAILURES`` (0: no limit),
        ``DARKROAD_TRUSTED_PROXIES``, ``DARKROAD_METRICS_TOKEN``, ``DARKROAD_REDIS_USERNAME``,
        ``DARKROAD_REDIS_PASSWORD`` (or ``DARKROAD_REDIS_PASSWORD_FILE``),
        ``DARKROAD_REDIS_SENTINEL_USERNAME``, ``DARKROAD_REDIS_SENTINEL_PASSWORD`` (or
        ``DARKROAD_REDIS_SENTINEL_PASSWORD_FILE``), ``DARKROAD_PUBLIC_URL``,
        ``DARKROAD_WEBHOOK_ALLOW_PRIVATE`` (1/true), ``DARKROAD_WEBHOOK_TIMEOUT``,
        ``DARKROAD_WEBHOOK_FIRST_RETRY``, ``DARKROAD_WEBHOOK_MAX_INTERVAL``, ``DARKROAD_WEBHOOK_RETRY_FOR``,
        ``DARKROAD_WEBHOOK_CLAIM_TIMEOUT`` (seconds), ``DARKROAD_WEBHOOK_CONCURRENCY``.
        """
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for variable, name in _STRINGS.items():
            if value := env.get(variable):
                values[name] = value
        for variable, name in (("DARKROAD_REDIS_PASSWORD_FILE", "redis_password"),
                               ("DARKROAD_REDIS_SENTINEL_PASSWORD_FILE", "redis_sentinel_password")):  # fmt: skip
            if password_file := env.get(variable):  # a Docker secret, say
                with open(password_file, encoding="utf-8") as secret:
                    values[name] = secret.read().rstrip("\r\n")
        if env.get("DARKROAD_STRICT_PLUGINS", "").lower() in ("1", "true", "yes"):
            values["strict_plugins"] = True
        if env.get("DARKROAD_WEBHOOK_ALLOW_PRIVATE", "").lower() in ("1", "true", "yes"):
            values["webhook_allow_private"] = True
        if excluded := env.get("DARKROAD_EXCLUDE_PLUGINS"):
            values["exclude_plugins"] = tuple(name.strip() for name in excluded.split(",") if name.strip())
        for variable in DEPRECATED:
            if env.get(variable):
                warnings.warn(
                    f"{variable} is deprecated and ignored: bots no longer play inside requests "
                    "(they play in bot workers: `darkroad bots`, or `darkroad serve --bots 1`)",
                    DeprecationWarning,
                    stacklevel=2,
                )
                logging.getLogger("darkroad.api").warning("%s is deprecated and ignored: bots play in bot workers",
                                                          variable)
        for variable, (name, kind) in _NUMBERS.items():
            if raw := env.get(variable):
                try:
                    values[name] = kind(raw)
                except ValueError:
                    raise ValueError(f"{variable} must be a number ({kind.__name__}), got {raw!r}") from None
        values.update(overrides)
        return cls(**values)  # type: ignore[arg-type]


DEPRECATED = ("DARKROAD_BOT_MOVES_PER_REQUEST", "DARKROAD_BOT_TIME_PER_REQUEST")
"""Variables of settings that are gone (the bots' budgets inside requests): accepted, with a warning."""

# The variables of plain settings, and the setting each sets (Settings.from_env).
_STRINGS = {
    "DARKROAD_REDIS_URL": "redis_url",
    "DARKROAD_REDIS_MODE": "redis_mode",
    "DARKROAD_REDIS_SERVICE": "redis_service",
    "DARKROAD_REDIS_USERNAME": "redis_username",
    "DARKROAD_REDIS_PASSWORD": "redis_password",
    "DARKROAD_REDIS_SENTINEL_USERNAME": "redis_sentinel_username",
    "DARKROAD_REDIS_SENTINEL_PASSWORD": "redis_sentinel_password",
    "DARKROAD_METRICS_TOKEN": "metrics_token",
    "DARKROAD_TRUSTED_PROXIES": "trusted_proxies",
    "DARKROAD_PUBLIC_URL": "public_url",
}

_NUMBERS: dict[str, tuple[str, type[int] | type[float]]] = {
    "DARKROAD_REDIS_MAX_CONNECTIONS": ("redis_max_connections", int),
    "DARKROAD_REDIS_WAIT_REPLICAS": ("redis_wait_replicas", int),
    "DARKROAD_REDIS_WAIT_TIMEOUT": ("redis_wait_timeout", float),
    "DARKROAD_REDIS_RETRY_WINDOW": ("redis_retry_window", float),
    "DARKROAD_REDIS_TIMEOUT": ("redis_timeout", float),
    "DARKROAD_MAX_EVENT_STREAMS": ("max_event_streams", int),
    "DARKROAD_MAX_EVENT_STREAMS_PER_CLIENT": ("max_event_streams_per_client", int),
    "DARKROAD_MAX_BODY_SIZE": ("request_max_body_size", int),
    "DARKROAD_REQUEST_TIMEOUT": ("request_timeout", float),
    "DARKROAD_ACTIVE_GAME_TTL": ("active_game_ttl", int),
    "DARKROAD_FINISHED_GAME_TTL": ("finished_game_ttl", int),
    "DARKROAD_IDEMPOTENCY_TTL": ("idempotency_ttl", int),
    "DARKROAD_WAITING_GAME_TTL": ("waiting_game_ttl", int),
    "DARKROAD_BOT_MOVE_TIMEOUT": ("bot_move_timeout", float),
    "DARKROAD_BOTS": ("bots", int),
    "DARKROAD_BOT_CONCURRENCY": ("bot_concurrency", int),
    "DARKROAD_BOT_CLAIM_TIMEOUT": ("bot_claim_timeout", float),
    "DARKROAD_BOT_BACKLOG_WARNING": ("bot_backlog_warning", float),
    "DARKROAD_BOT_SHARDS": ("bot_shards", int),
    "DARKROAD_STREAM_HEARTBEAT": ("stream_heartbeat", float),
    "DARKROAD_STREAM_MAX_DURATION": ("stream_max_duration", float),
    "DARKROAD_LOG_MAX_WAIT": ("log_max_wait", float),
    "DARKROAD_RATE_LIMIT_WINDOW": ("rate_limit_window", float),
    "DARKROAD_RATE_LIMIT_REQUESTS": ("rate_limit_requests", int),
    "DARKROAD_RATE_LIMIT_CREATES": ("rate_limit_creates", int),
    "DARKROAD_RATE_LIMIT_AUTH_FAILURES": ("rate_limit_auth_failures", int),
    "DARKROAD_WEBHOOK_TIMEOUT": ("webhook_timeout", float),
    "DARKROAD_WEBHOOK_FIRST_RETRY": ("webhook_first_retry", float),
    "DARKROAD_WEBHOOK_MAX_INTERVAL": ("webhook_max_interval", float),
    "DARKROAD_WEBHOOK_RETRY_FOR": ("webhook_retry_for", float),
    "DARKROAD_WEBHOOK_CONCURRENCY": ("webhook_concurrency", int),
    "DARKROAD_WEBHOOK_CLAIM_TIMEOUT": ("webhook_claim_timeout", float),
}
