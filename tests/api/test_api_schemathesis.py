"""schemathesis against the app, through ASGI: stateless and stateful (links), all default checks.

Stateless: every operation, positive and negative inputs, a bounded number of examples.
Stateful: scenarios that create a game and follow the document's links to view it, list
and submit actions, read its log and score, authenticated with the created game's seat
tokens (a third-party client gets them the same way: from the create response).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.specs.openapi.schemas import OpenApiSchema

from darkroad.api.app import create_app
from darkroad.api.settings import Settings
from darkroad.core import Engine

EXAMPLES = 30
STEPS = 12
SCENARIOS = 25


class SeatTokens:
    """The seat tokens of the games created during the run, and whose turn it is to read."""

    def __init__(self) -> None:
        self.games: dict[str, dict[int, str]] = {}
        self.reads = 0

    def token(self, case: schemathesis.Case) -> str | None:
        """The token of the action's seat, or of each seat in turn for reads (one is awaited)."""
        tokens = self.games.get((case.path_parameters or {}).get("game_id", ""))
        if not tokens:
            return None
        seat = case.body.get("seat") if isinstance(case.body, dict) else None
        if not isinstance(seat, int) or seat not in tokens:
            self.reads += 1
            seat = self.reads % len(tokens)
        return tokens[seat]


@pytest.fixture(scope="module")
def seat_tokens() -> SeatTokens:
    return SeatTokens()


@pytest.fixture(scope="module")
def api_schema(engine: Engine, seat_tokens: SeatTokens) -> OpenApiSchema:
    # Short event streams and long polls: a fuzzer following a live game must not hang on it.
    # No rate limits: the fuzzer is one client making thousands of requests on purpose.
    unlimited = {"rate_limit_requests": 0, "rate_limit_creates": 0, "rate_limit_auth_failures": 0}
    app = create_app(
        Settings(stream_heartbeat=0.05, stream_max_duration=0.3, log_max_wait=0.1, **unlimited), engine=engine
    )
    schema = schemathesis.openapi.from_asgi("/schema/openapi.json", app)

    @schema.auth(refresh_interval=None, retry_on=[])
    class SeatTokenAuth:
        """Bearer seat tokens, as a client of the created game has them."""

        def get(self, case: schemathesis.Case, ctx: Any) -> str | None:
            return seat_tokens.token(case)

        def set(self, case: schemathesis.Case, data: str, ctx: Any) -> None:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}

    return schema


# The operations, read from the committed document (collection must not build the app).
# schemathesis' own pytest integration (``from_fixture`` + ``parametrize``) relies on pytest
# internals that pytest 9.2 removed; plain hypothesis over each operation's strategy does not.
DOCUMENT = json.loads((Path(__file__).parents[2] / "openapi" / "openapi.json").read_text())
CASES = sorted(
    (f"{method.upper()} {path}", mode)
    for path, item in DOCUMENT["paths"].items()
    for method, op in item.items()
    if method in ("get", "post", "put", "patch", "delete")
    # Negative inputs exist only where there is an input to break.
    for mode in GenerationMode
    if mode is GenerationMode.POSITIVE or op.get("parameters") or op.get("requestBody")
)


@pytest.mark.parametrize(("label", "mode"), CASES, ids=[f"{label}-{mode.value}" for label, mode in CASES])
def test_stateless(api_schema: OpenApiSchema, seat_tokens: SeatTokens, label: str, mode: GenerationMode) -> None:
    operation = api_schema.find_operation_by_label(label)
    assert operation is not None, label

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    def run(case: schemathesis.Case) -> None:
        token = seat_tokens.token(case)
        if token is not None:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
        case.call_and_validate()

    run()


def test_stateful(api_schema: OpenApiSchema, seat_tokens: SeatTokens) -> None:
    outcomes: Counter[tuple[str, int]] = Counter()

    class Workflow(api_schema.as_state_machine()):  # type: ignore[misc]
        """Remembers the seat tokens of the games it creates.

        A scenario must unfold the same way when hypothesis replays it: games get a fixed
        seed when the request leaves it to the server, and the reading seats restart.
        """

        def setup(self) -> None:
            seat_tokens.reads = 0

        def before_call(self, case: schemathesis.Case) -> None:
            creating = case.operation.label == "POST /v1/games"
            if creating and isinstance(case.body, dict) and case.body.get("seed") is None:
                case.body["seed"] = 1

        def after_call(self, response: Any, case: schemathesis.Case) -> None:
            if case.operation.label == "POST /v1/games" and response.status_code == 201:
                body = response.json()
                seat_tokens.games[body["id"]] = {seat["seat"]: seat["token"] for seat in body["seats"]}
            outcomes[(case.operation.label, response.status_code)] += 1

    Workflow.run(
        settings=settings(
            max_examples=SCENARIOS,
            stateful_step_count=STEPS,
            # Like schemathesis' own runner: the server's randomness (seeds, tokens) makes
            # replaying a scenario draw differently, so only generate.
            phases=[Phase.generate],
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
    )
    # The links were followed: games were created and acted on with their seat tokens (applied, or
    # refused by the rules rather than by authentication).
    acted = "POST /v1/games/{game_id}/actions"
    assert outcomes[("POST /v1/games", 201)] > 0
    assert outcomes[(acted, 200)] + outcomes[(acted, 409)] > 0, outcomes
