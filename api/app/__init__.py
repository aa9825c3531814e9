"""The application services: creating games, acting, the seats of the lobby, following a
game, the bots, over one repository of games (load, take, commit). They take domain values
(a caller, an ``Action``, an expected version, an idempotency key) and raise
:class:`~darkroad.api.app.service_errors.ServiceError`; they import no Litestar and no HTTP vocabulary."""
