"""The HTTP edge: the Litestar app factory, the policy layer every request passes
(:mod:`~darkroad.api.http.policy`), the controllers and guards that turn requests into
domain values, the mapping of domain errors to problem details, the OpenAPI document and the
uvicorn protocol. Nothing below this package knows of HTTP."""
