"""The darkroad REST API: a stateless Litestar app over a game store (memory or Redis)."""
