"""Generated clients, as third-party developers make them from the committed document.

The Python client is generated with openapi-python-client (any generator warning fails),
then plays a whole 2-player game against ``darkroad serve`` on its default store (memory, as
the TypeScript and Go checks' servers) through its own functions and models only; the bot of
examples/python plays on it too. Which store serves the game is the store tests' business
(tests/api/store): a client sees the same contract from either. The TypeScript
client (openapi-typescript + openapi-fetch, ``tsc --strict``, examples/typescript playing
full games) is ``scripts/check-ts-client``, and the Go client (openapi-generator, ``go vet``,
``go build``, examples/go playing full games) ``scripts/check-go-client``, run from here so
that ``scripts/test`` (CI) runs them all.
"""

from __future__ import annotations

import importlib
import inspect
import os
import random
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from apiutil import ApiServer, free_port, run_script
from httpx_sse import EventSource

ROOT = Path(__file__).parents[3]
DOCUMENT = ROOT / "openapi" / "openapi.json"
PACKAGE = "darkroad_client"

pytestmark = pytest.mark.slow
PYTHON_CLIENT = pytest.mark.xdist_group("python-client")
"""The Python client's tests share its generation and a server (module fixtures): one worker
runs them all (the Go and TypeScript checks, scripts of their own, go anywhere)."""


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The folder holding the package generated from the committed document (on ``sys.path``)."""
    from openapi_python_client import generate
    from openapi_python_client.config import Config, ConfigFile, MetaType

    root = tmp_path_factory.mktemp("python-client")
    # No post hooks: they only format the code (and would warn if ruff were not on PATH).
    config = Config.from_sources(ConfigFile(post_hooks=[]), MetaType.NONE, DOCUMENT, "utf-8", False, root / PACKAGE)
    problems = generate(config=config)
    assert not problems, "openapi-python-client warned:\n" + "\n".join(
        f"{problem.level.value}: {problem.header} {problem.detail or ''}" for problem in problems
    )
    sys.path.insert(0, str(root))
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def server() -> Iterator[ApiServer]:
    api = ApiServer(None).start()
    yield api
    api.stop()


def _endpoints() -> ModuleType:
    """``api.games`` of the generated package, with its endpoint modules."""
    games = importlib.import_module(f"{PACKAGE}.api.games")
    for name in ("create_game", "get_game", "list_actions", "submit_action", "get_log", "get_score"):
        importlib.import_module(f"{games.__name__}.{name}")
    return games


@PYTHON_CLIENT
def test_python_client_plays_a_whole_game(generated: Path, server: ApiServer) -> None:
    client = importlib.import_module(PACKAGE)
    games, models = _endpoints(), importlib.import_module(f"{PACKAGE}.models")
    anyone = client.Client(base_url=server.url, raise_on_unexpected_status=True)
    created = games.create_game.sync(client=anyone, body=models.NewGame(players=2, seed=8))
    assert isinstance(created, models.CreatedGame), created
    seats = {seat.seat: client.AuthenticatedClient(base_url=server.url, token=seat.token,
                                                  raise_on_unexpected_status=True) for seat in created.seats}
    view = games.get_game.sync(created.id, client=anyone)  # a spectator: a client without credentials
    assert isinstance(view, models.GameView) and view.seat is None
    assert set(view.board.market.wheel.additional_properties) == set(view.board.market.dice.additional_properties)
    assert games.get_game.sync_detailed(created.id, client=anyone, if_none_match=f'"{view.version}"').status_code == 304

    rng, actions = random.Random(8), 0
    while view.status != models.GameViewStatus.FINISHED:
        seat = rng.choice(view.awaiting)
        listed = games.list_actions.sync(created.id, client=seats[seat])
        assert isinstance(listed, models.ActionList) and listed.actions, listed
        action = rng.choice(listed.actions)
        assert type(action).__name__.startswith("Action")  # a typed variant, not the open one
        response = games.submit_action.sync_detailed(
            created.id, client=seats[seat], body=action, if_match=f'"{listed.version}"',
            idempotency_key=str(uuid.uuid4()),
        )
        assert response.status_code == 200, response.content
        view = response.parsed
        assert isinstance(view, models.GameView) and view.seat == seat
        assert response.headers["ETag"] == f'"{view.version}"'
        assert all(isinstance(die, models.ActionDie) for player in view.players for die in player.action_pool)
        actions += 1
    assert actions > 100

    # Stale If-Match: a typed problem with the current version (and its ETag).
    stale = games.submit_action.sync_detailed(created.id, client=seats[0], body=action, if_match='"0"')
    assert stale.status_code == 409 and isinstance(stale.parsed, models.ProblemDetails)
    assert stale.parsed.type_ == "stale-version" and stale.parsed.version == view.version

    final = games.get_score.sync(created.id, client=anyone)
    assert isinstance(final, models.FinalScore)
    assert [line.to_dict() for line in final.score] == [line.to_dict() for line in view.score]
    assert final.winners == view.winners
    for line in final.score:
        assert line.total == line.base + line.deed_vp + line.illuminated_vp + line.goods_vp + line.quartz_vp
        assert line.base == min(line.coins, line.prestige)

    events: list[Any] = []
    page = models.EventPage(events=[], next_=-1, more=True, finished=False)
    while page.more or not events:
        page = games.get_log.sync(created.id, client=seats[0], after=page.next_, limit=200)
        assert isinstance(page, models.EventPage)
        events += page.events
    assert page.finished
    assert [event.n for event in events] == sorted({event.n for event in events})
    assert not [event for event in events if isinstance(event, models.PluginEvent)]
    finished = [event for event in events if isinstance(event, models.EventGameFinished)]
    assert [event.data.winners for event in finished] == [view.winners]
    # The long poll of a finished game answers at once, saying so.
    tail = games.get_log.sync(created.id, client=anyone, after=page.next_, wait=30)
    assert isinstance(tail, models.EventPage) and tail.events == [] and tail.finished


def _contract() -> tuple[ModuleType, ModuleType, ModuleType, ModuleType]:
    """The generated package, its ``api.games`` (with every endpoint module), models and types."""
    client = importlib.import_module(PACKAGE)
    games = _endpoints()
    for name in ("join_seat", "stream_events"):
        importlib.import_module(f"{games.__name__}.{name}")
    return client, games, importlib.import_module(f"{PACKAGE}.models"), importlib.import_module(f"{PACKAGE}.types")


def _refused(response: Any, models: ModuleType) -> list[tuple[str, str]]:
    """A 400 bad-request's ``errors`` as (source, key) pairs."""
    assert response.status_code == 400, response.content
    problem = response.parsed
    assert isinstance(problem, models.ProblemDetails) and problem.type_ == "bad-request", problem
    assert isinstance(problem.errors, list), f"no errors: {response.content!r}"
    return [(error.source, error.key) for error in problem.errors]


# What a generated client trips over when the document and the server disagree (issue 24): each
# test below fails against a server or a document that does not keep the contract.


@PYTHON_CLIENT
def test_python_client_gets_errors_of_invalid_bodies(generated: Path, server: ApiServer) -> None:
    """An invalid body's 400 lists each bad part in `errors`, as a parameter's does."""
    client, games, models, _ = _contract()
    anyone = client.Client(base_url=server.url)
    assert _refused(games.create_game.sync_detailed(client=anyone, body=models.NewGame(players=5)), models) == [
        ("body", "players")]
    waiting = games.create_game.sync(client=anyone, body=models.NewGame.from_dict(
        {"players": 2, "seats": [{"kind": "human"}, {"kind": "open"}]}))
    assert isinstance(waiting, models.CreatedGame)
    blank = games.join_seat.sync_detailed(waiting.id, 1, client=anyone, body=models.JoinSeat(name=" "),
                                          idempotency_key=str(uuid.uuid4()))
    assert _refused(blank, models) == [("body", "name")]


@PYTHON_CLIENT
def test_python_client_gets_400_for_what_the_schema_refuses(generated: Path, server: ApiServer) -> None:
    """Bodies the document's `not` refuses are refused as every other schema violation: 400, not 422."""
    client, games, models, _ = _contract()
    anyone = client.Client(base_url=server.url)
    for body, key in [({"players": 2, "private_concern": True}, "private_concern"),
                      ({"players": 2, "seats": [{"kind": "human"}]}, "seats"),
                      ({"players": 3, "private_concern": True, "seats": [{"kind": "human"}] * 3}, "seats")]:
        response = games.create_game.sync_detailed(client=anyone, body=models.NewGame.from_dict(body))
        assert _refused(response, models) == [("body", key)], body


@PYTHON_CLIENT
def test_python_client_types_problem_members_as_absent(generated: Path, server: ApiServer) -> None:
    """ProblemDetails' members of some types only are optional without a default: absent, never None."""
    client, games, models, types = _contract()
    for member in ("errors", "version", "plugin", "instance"):
        annotation = str(inspect.signature(models.ProblemDetails).parameters[member].annotation)
        assert "Unset" in annotation and "None" not in annotation, (member, annotation)
    anyone = client.Client(base_url=server.url)
    created = games.create_game.sync(client=anyone, body=models.NewGame(players=2, seed=4))
    early = games.get_score.sync_detailed(created.id, client=anyone)
    assert early.status_code == 409 and isinstance(early.parsed, models.ProblemDetails)
    assert isinstance(early.parsed.errors, types.Unset) and isinstance(early.parsed.version, types.Unset)


@PYTHON_CLIENT
def test_python_client_follows_the_stream(generated: Path, server: ApiServer) -> None:
    """Last-Event-ID is a string (httpx takes only text header values), and one message of the
    stream parses into its event's own class with a model generated from the document
    (`EventMessage`), read with httpx-sse as docs/clients.md says."""
    client, games, models, _ = _contract()
    annotation = str(inspect.signature(games.stream_events.sync_detailed).parameters["last_event_id"].annotation)
    assert "str" in annotation and "int" not in annotation, annotation
    anyone = client.Client(base_url=server.url)
    created = games.create_game.sync(client=anyone, body=models.NewGame(players=2, seed=3))
    assert isinstance(created, models.CreatedGame)
    kwargs = games.stream_events._get_kwargs(created.id, last_event_id="0")
    with anyone.get_httpx_client().stream(**kwargs) as response:
        assert response.status_code == 200
        sse = next(iter(EventSource(response).iter_sse()))
    message = models.EventMessage.from_dict({"id": sse.id, "event": sse.json()})
    assert message.id == "1" and message.event.n == 1
    assert type(message.event).__name__.startswith("Event")  # a known event's own class


@PYTHON_CLIENT
def test_python_example_plays(generated: Path, server: ApiServer) -> None:
    """examples/python/bot.py plays a whole game on the generated client: two seats, each its own
    task following the stream (a third asked nothing more of the example, and each seat lists
    its actions at every event: a 3-player game sent about twice the requests)."""
    env = {**os.environ, "PYTHONPATH": str(generated)}
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "python" / "bot.py"), "--url", server.url, "--players", "2",
         "--seed", "21"],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert run.returncode == 0, run.stderr
    assert "winners: seat" in run.stdout


def test_go_client() -> None:
    """openapi-generator's Go client compiles (go vet, go build) and examples/go plays full games."""
    go = shutil.which("go") or next(iter(sorted(Path("/usr/lib").glob("go-*/bin/go"))), None)
    if go is None and not os.environ.get("CI"):
        pytest.skip("go (Debian's golang-go) is not installed")
    env = {**os.environ, "DARKROAD": str(Path(sys.executable).parent / "darkroad"), "PYTHON": sys.executable,
           "PORT": str(free_port()), "GENERATOR": str(Path(sys.executable).parent / "openapi-generator-cli")}
    run = run_script([str(ROOT / "scripts" / "check-go-client")], timeout=600, env=env, cwd=ROOT)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert run.stdout.count("winners: seat") == 2


def test_typescript_client() -> None:
    if shutil.which("npm") is None and not os.environ.get("CI"):
        pytest.skip("npm (node >= 20) is not installed")
    env = {**os.environ, "DARKROAD": str(Path(sys.executable).parent / "darkroad"), "PYTHON": sys.executable,
           "PORT": str(free_port())}
    run = run_script([str(ROOT / "scripts" / "check-ts-client")], timeout=600, env=env, cwd=ROOT)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert run.stdout.count("winners: seat") == 2
