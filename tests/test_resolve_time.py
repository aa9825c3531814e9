"""Every limit holds when a choice resolves, not only when it is offered (issue 23).

A choice offered under a limit ("If your wagon already has a wagon upgrade, you cannot choose
this good fortune") may resolve after something else happened: a companion ability ("You may
only trigger companion abilities on your own turn, but may do so at any time", p. 16) or a
plugin's extra option used while the choice was pending. docs/content.md ("Timing rulings",
items 1 and 24) has the ruling and the list of the limits audited.

Page numbers refer to the published English rulebook (final edition).
"""

from __future__ import annotations

from darkroad.core.state import CompanionCard
from darkroad.core.testing import Table


def cosimo_table(table) -> Table:
    """Seat 0 leads a caravan of a 3-player game on its own turn, with Cosimo and a hero to
    give it, no steed (Velvet would lift the upgrade limit) and no upgrade yet."""
    t = table(players=3, seed=1)
    for s in range(3):
        t.setup_wagon(s, steeds=[], upgrades=[])
    t.game.active, t.game.phase = 0, "activate"
    hero = t.game.board.hero_deck.pop()
    t.setup_wagon(0, heroes=[hero], companions=[CompanionCard(card="cosimo-1")])
    return t


def test_the_reported_case_no_second_upgrade_through_cosimo(table):
    """Wagon Upgrades (p. 19): "You may only have 1 wagon upgrade per game"; the good fortune
    (p. 13): "Gain 1 available wagon upgrade. If your wagon already has a wagon upgrade, you
    cannot choose this good fortune".

    The issue's game: the good fortune "upgrade" chosen, then Cosimo used (its reward: a wagon
    upgrade) before the upgrade was picked, then both resolved: two upgrades without Velvet.
    The ruling: picking the tile is part of the gain already chosen, so no ability comes in
    between; and the pick checks the limit again when it resolves."""
    t = cosimo_table(table)
    t.push("good_fortune", 0, left=1)
    assert any(a.type == "companion" for a in t.legal(0))  # between good fortunes: at any time
    t.choose("good_fortune", "upgrade")
    assert t.decision == "choose_upgrade"
    assert [a.type for a in t.legal(0) if a.type == "companion"] == []
    t.refuses("companion", "cosimo-1:0", seat=0)
    t.choose("choose_upgrade", startswith="upgrade:")
    assert len(t.game.players[0].upgrades) == 1
    # Cosimo afterwards: its wagon upgrade is ruled out, the dark market is its reward.
    if t.game.stack and t.decision != "turn":
        assert "upgrade" not in t.options(0)


def test_cosimo_first_rules_out_the_upgrade_good_fortune(table):
    """The other order: Cosimo's upgrade first (at the good fortune decision, "at any time"),
    then the good fortune no longer offers an upgrade (p. 13)."""
    t = cosimo_table(table)
    t.push("good_fortune", 0, left=1)
    t.choose("companion", "cosimo-1:0")
    t.choose("cosimo_reward", "upgrade")
    t.choose("choose_upgrade", startswith="upgrade:")
    assert len(t.game.players[0].upgrades) == 1
    assert t.decision == "good_fortune"
    assert "upgrade" not in t.options(0)


def test_a_pending_upgrade_choice_rechecks_the_limit(table):
    """Wagon Upgrades (p. 19): "You may only have 1 wagon upgrade per game". Whatever gave the
    wagon an upgrade while the pick was pending (a plugin, a future ability), the pick checks
    the limit when it resolves: it offers nothing and is skipped."""
    t = cosimo_table(table)
    t.push("good_fortune", 0, left=1)
    t.choose("good_fortune", "upgrade")
    assert t.decision == "choose_upgrade"
    upgrade = t.game.board.upgrades[0]

    def sneak(ctx) -> None:  # an upgrade arriving while the pick waits
        from darkroad.core.caravan import gain_upgrade
        gain_upgrade(ctx, 0, upgrade)

    t.run(sneak)
    assert t.game.players[0].upgrades == [upgrade]
    assert t.decision != "choose_upgrade"
