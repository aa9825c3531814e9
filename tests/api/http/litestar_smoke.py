"""Run by ``test_api_litestar_floor.py`` in a process whose Litestar is the floor version of
``pyproject.toml`` (or the newest the project is tested with): the app is built and its action
route is served by the adapter (``darkroad.api.http.action_route``, which calls into Litestar's
handler, request and response objects itself), and the action table of
``test_api_action_route.py`` goes through the adapter and through Litestar's own route, answered
the same byte for byte. Prints the version it ran with."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # the test module and apiutil, as pytest's rootdir-relative imports

from importlib.metadata import version  # noqa: E402

import litestar  # noqa: E402
from test_api_action_route import CASES, compare  # noqa: E402

from darkroad.api.http.action_route import ActionRoute  # noqa: E402
from darkroad.api.http.app import ACTION_ROUTE, create_app  # noqa: E402
from darkroad.api.http.policy import PolicedApp  # noqa: E402
from darkroad.api.settings import Settings  # noqa: E402


async def main() -> None:
    app = create_app(Settings(rate_limit_requests=0, rate_limit_creates=0, rate_limit_auth_failures=0))
    assert isinstance(app, PolicedApp)
    route = app.policies.table.match(ACTION_ROUTE)
    assert route is not None and isinstance(route.methods["POST"].app, ActionRoute), "the adapter is not in place"
    compared = await compare(app)
    assert compared == sum(case.times for case in CASES)
    print(f"litestar {version('litestar')} ({Path(litestar.__file__).parent.parent.name}): {compared} requests ok")


if __name__ == "__main__":
    asyncio.run(main())
