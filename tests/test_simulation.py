"""``darkroad simulate`` and the bots (issue 12): the bots are plugins, seated by id; a
simulation reports how the components were used and which plugins were skipped; every
decision's answer is in the event log."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable

import pytest
from typer.testing import CliRunner

from darkroad.api import cli
from darkroad.api.tools.simulation import GameResult, UnknownBot, play_game, seat_bots, simulate
from darkroad.core import Engine, GameConfig, i18n
from darkroad.testing import Table

runner = CliRunner()


def test_the_base_game_bots_are_plugins(engine: Engine) -> None:
    assert set(engine.bots) >= {"random", "greedy"}
    assert engine.bot_plugins["random"] == "bot-random" and engine.bot_plugins["greedy"] == "bot-greedy"
    assert engine.plugins.plugins["bot-greedy"].builtin
    report = json.loads(runner.invoke(cli.app, ["plugins", "--all", "--json"]).stdout)
    bots = {c["id"]: c for c in report["components"] if c["kind"] == "bot"}
    assert bots["greedy"] == {"kind": "bot", "id": "greedy", "name": "Greedy", "plugin": "bot-greedy",
                              "version": engine.plugins.plugins["bot-greedy"].version}
    assert "random" in bots


@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_a_bot_is_a_function_of_the_game_state(engine: Engine, bot: str) -> None:
    """The same position gives the same answer, from the same bot object or another
    process's (a fresh engine): nothing is kept between calls."""
    t = Table.new(players=3, seed=4, engine=engine)
    t.play(until=lambda t: t.game.version >= 40, seed=4)
    seat = t.awaiting[0]
    legal = t.legal(seat)
    first = engine.bot_choice(t.game, seat, engine.bots[bot])
    assert first in legal
    other = Engine.load()
    assert [engine.bot_choice(t.game, seat, engine.bots[bot]) for _ in range(3)] == [first] * 3
    assert other.bot_choice(other.copy(t.game), seat, other.bots[bot]) == first


def test_games_of_bots_replay_identically(engine: Engine) -> None:
    def play() -> list[tuple[str, int, str]]:
        t = Table.new(players=2, seed=9, engine=engine)
        t.play(bots=[engine.bots["greedy"], engine.bots["random"]], seed=9)
        return [(e.type, e.n, json.dumps(e.data, sort_keys=True)) for e in t.events]

    assert play() == play()


def test_a_repeatable_choice_ends(engine: Engine) -> None:
    """The greedy bot values each trade at the Guildmaster's Mansion as if it were the
    last: it never trades in circles (seed 11 traded forever when it did not)."""
    bots = seat_bots(engine, ["greedy"] * 4)
    result = play_game(engine, GameConfig(players=4, seed=11, random_buildings=True), bots, max_steps=3000)
    assert result.completed, result.error
    assert "guildmasters_mansion" in result.buildings


def test_unknown_bots_are_refused_listing_the_installed_ones(engine: Engine) -> None:
    with pytest.raises(UnknownBot, match=r"unknown bot\(s\) \['nope'\]; installed bots: greedy, random, search"):
        simulate(engine, 1, 2, bots=["random", "nope"])
    result = runner.invoke(cli.app, ["simulate", "--games", "1", "--bot", "random,nope"])
    assert result.exit_code == 2
    said = " ".join(result.output.replace("│", " ").split())
    assert "Invalid value for --bot: unknown bot(s) ['nope']; installed bots: greedy, random, search" in said


def test_usage_is_reported(engine: Engine) -> None:
    """Activations per building over the games it was in play, answers per option of every
    plugin decision, companion abilities triggered; fan companions join with ``companions``."""
    out = simulate(engine, 4, 2, seed=1, bots=["random"], companions=["snow_owl"])
    assert out["completed"] == 4 and out["skipped_plugins"] == {}
    activations = out["activations_by_building"]
    assert sum(v["games"] for v in activations.values()) == 4 * 4  # 4 buildings in each game
    assert all(v["per_game"] == round(v["activations"] / v["games"], 2) for v in activations.values())
    answers = out["answers_by_decision"]
    assert "plan" not in answers and "move" not in answers  # the core's own decisions are not plugins'
    assert all(engine.step_plugin(kind) for kind in answers)
    assert any(k.startswith("snow_owl:") for k in out["companion_uses"])
    without = simulate(engine, 4, 2, seed=1, bots=["random"])
    assert not any(k.startswith("snow_owl:") for k in without["companion_uses"])


def test_answers_and_activations_are_counted(engine: Engine) -> None:
    """The counts of a game are those of the same game played by hand (bots answer alike)."""
    config = GameConfig(players=2, seed=2, buildings=["guildmasters_mansion", "oracle_of_lumi",
                                                      "blazing_quartz_mine", "yedls_workshop"])
    bots = seat_bots(engine, ["greedy", "random"])
    result = play_game(engine, config, bots)
    assert isinstance(result, GameResult) and result.completed
    game, _ = engine.create(GameConfig(players=2, seed=2, buildings=list(config.buildings)))
    answers: dict[str, Counter[str]] = {}
    activations: Counter[str] = Counter()
    while not game.finished:
        seat = engine.awaiting(game)[0]
        action = engine.bot_choice(game, seat, bots[seat])
        if action.type != "companion" and engine.step_plugin(action.type):
            answers.setdefault(action.type, Counter())[action.option] += 1
        for e in engine.apply(game, action):
            if e.type == "activated" and e.data["what"] == "building":
                activations[e.data["target"]] += 1
    assert answers and activations
    assert result.answers == {k: dict(v) for k, v in answers.items()}
    assert result.activations == dict(activations)


def test_the_cli_prints_usage_and_the_skipped_plugins(add_entry_point: Callable[[str, str], None]) -> None:
    add_entry_point("broken-fan", "darkroad_no_such_module")
    result = runner.invoke(cli.app, ["simulate", "--games", "2", "--players", "2", "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    assert "plugin 'broken-fan' failed to load and was skipped: ModuleNotFoundError" in result.stderr
    out = json.loads(result.stdout)
    assert out["skipped_plugins"] == {"broken-fan": "ModuleNotFoundError: No module named 'darkroad_no_such_module'"}
    table = runner.invoke(cli.app, ["simulate", "--games", "4", "--players", "2", "--seed", "1"])
    assert table.exit_code == 0
    shown = " ".join(table.stdout.split())  # a narrow table wraps its title
    for title in ("activations by building", "answers to plugin decisions", "companion abilities triggered"):
        assert title in shown


def test_unknown_fan_companion_is_a_usage_error() -> None:
    result = runner.invoke(cli.app, ["simulate", "--games", "1", "--companions", "glow_moth"])
    assert result.exit_code == 2
    said = " ".join(result.output.replace("│", " ").split())
    assert "Invalid value for --companions: unknown companion 'glow_moth'" in said


def test_answers_to_plugin_decisions_are_in_the_event_log(engine: Engine) -> None:
    """The seat sees which option it chose at a plugin's decision (a private ``answered``
    event first), the other seats do not (an option may name a secret); the core's own
    decisions log what they do instead."""
    t = Table.new(players=2, seed=5, engine=engine, random_buildings=True)
    kinds: Counter[str] = Counter()
    while not t.game.finished and len(kinds) < 3:
        seat = t.awaiting[0]
        action = t.legal(seat)[-1]
        events = t.apply(action)
        plugin = engine.step_plugin(action.type) is not None or action.type == "companion"
        answered = [e for e in events if e.type == "answered"]
        if not plugin:
            assert answered == []
            continue
        first = events[0]
        assert (first.type, first.seat, first.private_to) == ("answered", seat, seat)
        # With the option's label, as the seat was shown it, in every language (issue 42/43); a
        # companion's ability is named by its card.
        labels = {} if action.type == "companion" else {"labels": {**first.data["labels"], "en": action.label}}
        assert first.data == {"decision": action.type, "option": action.option, **labels}
        assert action.type == "companion" or set(first.data["labels"]) == set(i18n.LOCALES)
        assert not engine.visible(first, 1 - seat) and not engine.visible(first, None)
        kinds[action.type] += 1
    assert len(kinds) == 3


def test_darkroad_plugins_never_cuts_an_id() -> None:
    """A narrow terminal wraps the table's cells; an id is never cut to an ellipsis."""
    result = runner.invoke(cli.app, ["plugins", "--all"], terminal_width=60)
    assert result.exit_code == 0
    assert "…" not in result.stdout and "bot:greedy" in result.stdout


def test_the_private_concern_flag_takes_the_last_of_3_or_4_seats() -> None:
    """`--private-concern` says 3-4 players: 2 seats with it would silently be the solo game."""
    result = runner.invoke(cli.app, ["simulate", "--games", "1", "--players", "2", "--private-concern"])
    assert result.exit_code == 2
    said = " ".join(result.output.replace("│", " ").split())
    assert "Invalid value for --private-concern: the Private Concern takes the last of 3 or 4 seats" in said
    played = runner.invoke(cli.app, ["simulate", "--games", "1", "--players", "3", "--seed", "2", "--private-concern",
                                     "--json"])
    assert played.exit_code == 0, played.output
    assert json.loads(played.stdout)["games"] == 1


def test_a_seat_kind_flag_is_its_request_field() -> None:
    """`--private-concern` is not the CLI's own: `--<field>` is derived from each installed seat
    kind's request field (as the API's `POST /v1/games` takes it); another flag is refused."""
    result = runner.invoke(cli.app, ["simulate", "--games", "1", "--players", "3", "--private-kraken"])
    assert result.exit_code == 2
    said = " ".join(result.output.replace("│", " ").split())
    assert "Invalid value for --private-kraken: no such option (the installed seat kinds': --private-concern)" in said
