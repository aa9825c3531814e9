"""A game's setup as a caller asks for it (darkroad.core.game_setup): the config of a good request,
every problem of a bad one with its stable code and pointer, the rulebook's rules of who plays, and
the bots and time banks a game is set up with."""

from __future__ import annotations

import attrs
import pytest

from darkroad.core import Engine, GameConfig, SeatKind, errors
from darkroad.core import game_setup as setup
from darkroad.core.game_setup import SetupProblem, SetupRequest
from darkroad.core.i18n import Text

FIRST_GAME = ("blazing_quartz_mine", "oracle_of_lumi", "othos_lanternworks", "yedls_workshop")


def config_of(engine: Engine, **asked: object) -> GameConfig:
    config = setup.game_config(engine, SetupRequest(seed=7, **asked))  # type: ignore[arg-type]
    assert isinstance(config, GameConfig), config
    engine.create(attrs.evolve(config))  # the config of a good request makes a game (which records its plugins)
    return config


def refused(engine: Engine, **asked: object) -> list[tuple[str, str]]:
    found = setup.game_config(engine, SetupRequest(seed=7, **asked))  # type: ignore[arg-type]
    assert isinstance(found, list) and found, found
    assert all(isinstance(problem, SetupProblem) and str(problem.message) for problem in found)
    return [(problem.code, problem.pointer) for problem in found]


def test_a_request_of_every_field_is_that_config(engine: Engine) -> None:
    config = config_of(engine, players=3, buildings=FIRST_GAME, variants=("drafting",), companions=(),
                       random_buildings=False, seats=3)
    assert config == GameConfig(players=3, seed=7, buildings=list(FIRST_GAME), variants={"drafting": True})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_two_to_four_players_sit_at_the_table(engine: Engine, players: int) -> None:
    """The rulebook's game of 2 to 4 players ("Unless noted below, play the solo game exactly as you
    would the 2-player game", its solo rules say of the smallest): that many seats, each a player's."""
    config = config_of(engine, players=players, seats=players)
    assert config.players == players and config.options == {}


def test_solo_is_a_two_seat_game_against_the_private_concern(engine: Engine) -> None:
    """Rulebook, Private Concern Variant (p. 14): "Solo play [...] pits you against an automated opponent known as the Private
    Concern."; the solo rules (prototype, "Solo Play"): "Unless noted below, play the solo game exactly
    as you would the 2-player game." One player, then, and the Private Concern in a 2-seat game,
    without being asked for."""
    for asked in ({}, {"private_concern": True}):
        config = config_of(engine, players=1, seats=1, seat_kinds=asked)
        assert config.players == 2 and config.options == {"private_concern": True}


@pytest.mark.parametrize("players", [3, 4])
def test_the_private_concern_fills_a_seat_of_a_three_or_four_player_game(engine: Engine, players: int) -> None:
    """Rulebook, Private Concern Variant (p. 14): "The Private Concern is included in the player count. This means that the
    Private Concern can be used to simulate a 3-player game (2 human players, 1 automated player) or a
    4-player game (3 human players, 1 automated player).\""""
    config = config_of(engine, players=players, seats=players - 1, seat_kinds={"private_concern": True})
    assert config.players == players and config.options == {"private_concern": True}
    assert engine.seat_assignment(config) == {players - 1: engine.seat_kinds["private_concern"]}


def test_the_private_concern_is_no_third_seat_of_a_two_player_game(engine: Engine) -> None:
    """The same page counts it among the players of a 3- or 4-player game only: with 2 players it is
    the solo game, asked for as `players: 1`."""
    assert refused(engine, players=2, seat_kinds={"private_concern": True}) == [
        (setup.KIND_SIZE, "/private_concern")]


def test_a_solo_game_without_its_opponent_is_refused(engine: Engine) -> None:
    assert refused(engine, players=1, seat_kinds={"private_concern": False}) == [
        (setup.KIND_REFUSED_SOLO, "/private_concern")]


def test_four_buildings_or_none(engine: Engine) -> None:
    """Rulebook, setup, "3. Erect the Buildings": "Choose 4 buildings to use for this game"; "For later
    games, choose your own favorite combination of buildings or select at random.\""""
    assert config_of(engine, players=2).buildings == []
    assert config_of(engine, players=2, random_buildings=True).random_buildings
    for count in (1, 2, 3):
        assert refused(engine, players=2, buildings=FIRST_GAME[:count]) == [(setup.BUILDING_COUNT, "/buildings")]


def test_one_side_of_a_double_sided_tile(engine: Engine) -> None:
    """Rulebook, components: "5 double-sided building tiles": a game has one side of each in play.
    Each tile named with both sides is one problem."""
    both = ("blazing_quartz_mine", "queens_eyes_surveyor", "candle_and_quartz", "oracle_of_lumi")
    found = setup.game_config(engine, SetupRequest(players=2, seed=1, buildings=both))
    assert isinstance(found, list)
    assert [(p.code, p.pointer, str(p.message)) for p in found] == [
        (setup.TILE_SIDES, "/buildings", "`buildings` names both sides of one tile: blazing_quartz_mine, "
                                         "queens_eyes_surveyor"),
        (setup.TILE_SIDES, "/buildings", "`buildings` names both sides of one tile: candle_and_quartz, oracle_of_lumi"),
    ]


def test_every_problem_of_the_fields_at_once(engine: Engine) -> None:
    found = refused(engine, players=3, buildings=("frost_orchard", "frost_orchard"), companions=("cosimo", "cosimo"),
                    seats=1)
    assert found == [(setup.REPEATED_ID, "/buildings"), (setup.REPEATED_ID, "/companions"),
                     (setup.BUILDING_COUNT, "/buildings"), (setup.SEAT_COUNT, "/seats")]


@pytest.mark.parametrize(("players", "kinds", "count"), [(1, {}, 1), (2, {}, 2), (3, {}, 3), (4, {}, 4),
                                                         (3, {"private_concern": True}, 2),
                                                         (4, {"private_concern": True}, 3),
                                                         (4, {"private_concern": False}, 4)])
def test_seats_listed_one_per_player(engine: Engine, players: int, kinds: dict[str, bool], count: int) -> None:
    request = SetupRequest(players=players, seed=1, seat_kinds=kinds)
    assert setup.seat_count(engine.seat_kinds.values(), request) == count
    for wrong in (count - 1, count + 1):
        assert refused(engine, players=players, seat_kinds=kinds, seats=wrong) == [(setup.SEAT_COUNT, "/seats")]


class Peddler(SeatKind):
    """A seat kind of 3-4 player games only (no solo)."""

    id = "peddler"
    name = "Peddler"
    players = (3, 4)


class Hermit(SeatKind):
    """A second seat kind that plays solo."""

    id = "hermit"
    name = "Hermit"
    players = (2,)


class Installed:
    """An engine's stand-in with other seat kinds installed, and no bot (only ``seat_kinds`` and
    ``bots`` are read)."""

    def __init__(self, *kinds: SeatKind) -> None:
        self.seat_kinds = {kind.id: kind for kind in kinds}
        self.bots: dict[str, object] = {}


def solo_problems(*kinds: SeatKind, asked: dict[str, bool] | None = None) -> list[tuple[str, str, str]]:
    request = SetupRequest(players=1, seed=1, seat_kinds=asked or {})
    return [(p.code, p.pointer, str(p.message)) for p in setup.solo_problems(Installed(*kinds), request)]  # type: ignore[arg-type]


def test_who_plays_solo_when_several_or_none_may(engine: Engine) -> None:
    assert solo_problems(Peddler()) == [(setup.NO_SOLO_KIND, "/players", "a 1-player game is solo against a seat "
                                         "kind, and this installation has none that plays solo")]
    assert solo_problems(Peddler(), asked={"peddler": True}) == [
        (setup.KIND_NOT_SOLO, "/peddler", "the Peddler fills a seat of a 3-4 player game")]
    unchosen = (setup.SOLO_KIND_UNCHOSEN, "/players", "a 1-player game is solo against one seat kind, ask for one "
                "of: `hermit: true` (the Hermit), `private_concern: true` (the Private Concern)")
    concern = engine.seat_kinds["private_concern"]
    assert solo_problems(Hermit(), concern) == [unchosen]
    assert solo_problems(Hermit(), concern, asked={"hermit": True, "private_concern": True}) == [unchosen]
    assert solo_problems(Hermit(), concern, asked={"hermit": True}) == []


def test_refused_sizes_and_solo_kinds() -> None:
    assert setup.refused_sizes(Peddler()) == [2]
    assert setup.refused_sizes(Hermit()) == [2, 3, 4]
    assert [kind.id for kind in setup.solo_kinds([Peddler(), Hermit()])] == ["hermit"]


def test_the_bots_named_are_installed_ones(engine: Engine) -> None:
    """A bot seat's bot and ``timeout_bot`` are the engine's bots: each other one is an
    ``unknown-bot`` at its pointer, listing the installed bots, once the fields and who plays
    agree (the seat count first, here); its error is :class:`UnknownBot`, a bad config."""
    assert config_of(engine, players=2, seats=2, seat_bots=("greedy", None), timeout_bot="random").players == 2
    found = setup.game_config(engine, SetupRequest(players=2, seed=1, seats=2, seat_bots=("nobody", ""),
                                                   timeout_bot="Greedy"))
    assert isinstance(found, list)
    installed = ", ".join(sorted(engine.bots))
    assert [(p.code, p.pointer, str(p.message)) for p in found] == [
        (setup.UNKNOWN_BOT, "/seats/0/bot", f"No bot 'nobody' is installed here; installed bots: {installed}."),
        (setup.UNKNOWN_BOT, "/seats/1/bot", f"No bot '' is installed here; installed bots: {installed}."),
        (setup.UNKNOWN_BOT, "/timeout_bot", f"No bot 'Greedy' is installed here; installed bots: {installed}."),
    ]
    error = found[0].error()
    assert isinstance(error, errors.UnknownBot) and isinstance(error, errors.BadConfig)
    assert (error.code, error.reason) == ("unknown-bot", str(found[0].message))
    assert refused(engine, players=2, seats=1, seat_bots=("nobody",)) == [(setup.SEAT_COUNT, "/seats")]
    assert setup.bot_problems(Installed(), ["greedy"]) == [  # type: ignore[arg-type]
        SetupProblem(setup.UNKNOWN_BOT, "/seats/0/bot", Text("No bot '%(bot)s' is installed here; no bot is installed.",
                                                             bot="greedy"))]


def test_a_decision_adds_at_most_a_full_bank() -> None:
    assert setup.time_banks(60.0, 5.0) == (60.0, 5.0)
    assert setup.time_banks(60.0, 90.0) == (60.0, 60.0)
    assert setup.time_banks(60.0, 0.0) == (60.0, 0.0)
    assert [SetupProblem(setup.SEAT_COUNT, "/seats", Text("x")).error().code] == ["bad-config"]
