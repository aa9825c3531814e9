"""``darkroad arena`` (issue 21): bots play each other with rotating seats; each bot's win
rate (shared wins split) with a 95% Wilson interval, mean score, think time per decision,
and head-to-head results."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from typer.testing import CliRunner

from darkroad.api import cli
from darkroad.api.tools.arena import META, ArenaGame, arena, seating, summarise, wilson
from darkroad.core import Engine

runner = CliRunner()


def test_wilson_interval_matches_the_textbook() -> None:
    # Wilson (1927); the figures of Newcombe, Statistics in Medicine 17 (1998), table I,
    # example (a): 81 of 263 -> 0.2553 to 0.3662.
    low, high = wilson(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    low, high = wilson(0, 10)
    assert low == 0.0 and 0.27 < high < 0.31  # never below 0, and not degenerate at p = 0
    assert wilson(5, 10)[0] == pytest.approx(1 - wilson(5, 10)[1])  # symmetric at p = 1/2


@pytest.mark.parametrize(("bots", "players"), [(["a", "b"], 2), (["a", "b", "c"], 4), (["a", "b", "c", "d"], 4)])
def test_seats_rotate_so_every_bot_plays_every_seat_equally(bots: list[str], players: int) -> None:
    games = 4 * len(bots)
    count: Counter[tuple[str, int]] = Counter()
    for i in range(games):
        for seat, bot in enumerate(seating(bots, players, i)):
            count[bot, seat] += 1
    per_seat = {(b, s): count[b, s] for b in bots for s in range(players)}
    assert len(set(per_seat.values())) == 1, per_seat


def test_shared_wins_are_split_and_head_to_head_follows_the_ranking() -> None:
    games = [
        ArenaGame(seed=0, bots=["a", "b"], completed=True, scores=[20, 10], ranks=[1, 2], winners=[0],
                  think=[1.0, 0.5], decisions=[10, 10]),
        ArenaGame(seed=1, bots=["b", "a"], completed=True, scores=[15, 15], ranks=[1, 1], winners=[0, 1],
                  think=[0.5, 1.0], decisions=[5, 10]),
        ArenaGame(seed=2, bots=["a", "b"], error="boom"),
    ]
    out = summarise(games, ["a", "b"], 2)
    assert out[META]["completed"] == 2 and out[META]["error_seeds"] == [{"seed": 2, "error": "boom"}]
    a, b = out["a"], out["b"]
    assert (a["wins"], a["win_rate"], b["wins"], b["win_rate"]) == (1.5, 0.75, 0.5, 0.25)
    assert a["win_rate_95"] == [round(x, 4) for x in wilson(1.5, 2)]
    assert (a["mean_score"], b["mean_score"]) == (17.5, 12.5)
    assert a["mean_think_seconds"] == pytest.approx(0.1) and b["mean_think_seconds"] == pytest.approx(1 / 15, abs=1e-6)
    assert a["head_to_head"]["b"] == {**a["head_to_head"]["b"], "pairs": 2, "ahead": 1, "behind": 0, "level": 1,
                                      "ahead_rate": 0.75}
    assert b["head_to_head"]["a"]["ahead_rate"] == 0.25


def test_an_arena_of_real_games_played_alike_in_worker_processes(engine: Engine) -> None:
    """An arena of real games, and the same games played in worker processes: they come back in
    order, each the game one process plays (one arena of three games for both checks; before,
    a test of its own also played two other games twice for "the same seed, the same games")."""
    one = arena(engine, ["greedy", "random"], games=3, players=2, seed=11)
    assert one[META]["completed"] == 3 and one[META]["errors"] == 0
    for bot in ("greedy", "random"):
        assert one[bot]["seats_played"] == 3
        assert one[bot]["decisions"] > 0 and one[bot]["mean_think_seconds"] > 0
    assert one["greedy"]["wins"] + one["random"]["wins"] == pytest.approx(3)
    h = one["greedy"]["head_to_head"]["random"]
    assert (h["ahead"], h["behind"]) == (one["random"]["head_to_head"]["greedy"]["behind"],
                                         one["random"]["head_to_head"]["greedy"]["ahead"])
    # Same seed, same games (the bots are functions of the game state), in worker processes too.
    two = arena(engine, ["greedy", "random"], games=3, players=2, seed=11, workers=2)
    for bot in ("greedy", "random"):
        assert {k: v for k, v in two[bot].items() if "think" not in k} == \
            {k: v for k, v in one[bot].items() if "think" not in k}
    assert two["arena"]["workers"] == 2 and two["arena"]["completed"] == 3
    with pytest.raises(ValueError, match="workers"):
        arena(engine, ["random"], games=1, players=2, workers=0)


def test_arena_command_json_puts_each_bot_under_its_id() -> None:
    result = runner.invoke(cli.app, ["arena", "--bots", "random,random,random", "--games", "3", "--players", "3",
                                     "--seed", "2", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out) == {"arena", "random"}
    assert out["random"]["win_rate"] == pytest.approx(1 / 3, abs=1e-3)  # it won every game, as a third of the seats
    assert out["arena"]["players"] == 3 and out["arena"]["seed"] == 2


def test_arena_command_refuses_what_it_cannot_play() -> None:
    result = runner.invoke(cli.app, ["arena", "--bots", "random,nope", "--games", "1"])
    assert result.exit_code == 2 and "unknown bot(s) ['nope']" in " ".join(result.output.replace("│", " ").split())
    result = runner.invoke(cli.app, ["arena", "--bots", "random,random,random", "--players", "2", "--games", "1"])
    assert result.exit_code == 2
    table = runner.invoke(cli.app, ["arena", "--bots", "random,random", "--games", "2", "--seed", "1"])
    assert table.exit_code == 0 and "arena: 2 games of 2 players" in table.output


def test_bots_are_named_with_their_options(engine: Engine) -> None:
    """``id:option=value`` seats a bot so set (a number read as a number), its figures under
    that name; an option the bot does not take, or a malformed one, is refused up front."""
    from darkroad.api.tools.simulation import UnknownBot, seat_bots

    two, plain = seat_bots(engine, ["greedy:samples=2", "greedy"])
    assert two.samples == 2 and plain is engine.bots["greedy"]  # type: ignore[attr-defined]
    assert seat_bots(engine, ["search:think_time=0.25:replies=0"])[0].think_time == 0.25  # type: ignore[attr-defined]
    for bad in ("greedy:depth=3", "greedy:samples", "greedy:samples=0"):
        with pytest.raises(UnknownBot, match="greedy"):
            seat_bots(engine, [bad])
    out = arena(engine, ["greedy:samples=2", "random"], games=1, players=2, seed=5)  # one game names it
    assert out["greedy:samples=2"]["seats_played"] == 1 and out["arena"]["completed"] == 1


def test_progress_writes_each_game_as_it_ends() -> None:
    result = CliRunner().invoke(cli.app, ["arena", "--bots", "greedy,random", "--games", "2", "--seed", "3",
                                          "--json", "--progress"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    assert [g["seed"] for g in lines] == [3, 4] and all(g["completed"] for g in lines)
