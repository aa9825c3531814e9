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
        from darkroad.core.rulebook.good_fortune import gain_upgrade
        gain_upgrade(ctx, 0, upgrade)

    t.run(sneak)
    assert t.game.players[0].upgrades == [upgrade]
    assert t.decision != "choose_upgrade"


def test_no_ability_inside_a_gain(table):
    """Companions (p. 16): "You may only trigger companion abilities on your own turn, but may
    do so at any time": between steps, not inside a gain (docs/content.md, timing item 1).
    The Queen's Commissions (p. 8): "Gain the top commission of the stack of your choice":
    the pick of the stack is part of the gain; the ability is offered again once it is done."""
    t = cosimo_table(table)
    t.setup_wagon(0, commissions=[])
    t.district(0, "queens_commissions")
    assert t.decision == "choose_effect"
    assert {a.type for a in t.legal(0)} == {"choose_effect"}
    t.refuses("companion", "cosimo-1:0", seat=0)
    t.choose("choose_effect", startswith="commission:")
    assert len(t.game.players[0].commissions) == 1
    t.push("good_fortune", 0, left=1)  # a decision between steps: the ability is back
    assert "cosimo-1:0" in [a.option for a in t.legal(0) if a.type == "companion"]


def test_the_decisions_inside_a_gain(engine):
    """The audit's list (docs/content.md, timing item 24): the decisions that only pick what a
    gain already chosen or paid for gives admit no companion ability (the base game's: a fan
    plugin opts in with ``inside_gain``)."""
    inside = sorted(kind for kind, step in engine.steps.items() if step.inside_gain and engine.step_is_builtin(kind))
    assert inside == ["candle_and_quartz_gain", "choose_effect", "choose_upgrade", "concern_choice", "cosimo_gift",
                      "cosimo_reward", "grace_gift", "spare_harness_steed", "threy_cat_duplicate"]


def test_a_choice_for_the_private_concern_admits_no_ability(engine):
    """A choice the Trader's rules leave to the player is part of the Private Concern's action:
    even on the creator's own turn (the Private Concern delivering in the caravan the creator
    leads), the creator's abilities wait until it is made."""
    from darkroad.core import GameConfig
    from darkroad.core.testing import Table as T

    game, events = engine.create(GameConfig(players=2, seed=1, options={"private_concern": True}))
    t = T(engine, game, events, record=False)
    pc = 1
    north = sorted(h for h, c in engine.content.heroes.items() if c.town == "northbreak" and not c.starting)[:1]
    scorch = sorted(h for h, c in engine.content.heroes.items() if c.town == "scorchborn" and not c.starting)[:1]
    for h in north + scorch:
        t.game.board.hero_deck.remove(h)
    t.setup_wagon(pc, heroes=north + scorch, commissions=[])
    t.setup_wagon(0, companions=[CompanionCard(card="phoenix-1")], quartz=1, lanterns=0)
    t.game.active, t.game.phase = 0, "activate"
    t.push("deliveries", -1, final=True, pending=[0, pc], town={})
    assert t.decision == "concern_choice" and t.awaiting == [0]
    assert {a.type for a in t.legal(0)} == {"concern_choice"}
