"""Merchant's Ledger, a wagon upgrade (rulebook p. 19, "Wagon Upgrades").

"Goes in locked slot #3 and replaces that special action. When you use that special
action, gain 3 coins from the supply or 1 prestige."

The rulebook names no upgrade tile; the name is ours. The replaced action loses its
option to rotate the market wheel.
"""

from __future__ import annotations

from darkroad.core import Choice, Component, Ctx, Option, Step, Task, hookimpl, i18n

ID = "merchants_ledger"
SLOT = 3
REWARDS = {"coins": "coins:3", "prestige": "prestige:1"}


class Reward(Choice):
    """Gain 3 coins or 1 prestige."""

    kind = f"{ID}_reward"
    prompt = i18n.N_("Merchant's Ledger: gain 3 coins or 1 prestige")

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        # The rewards in the caller's language, as the engine words any effect ("gain 3 coins").
        return [(option, ctx.words.effects([effect])) for option, effect in REWARDS.items()]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        ctx.gain_effects(seat, [REWARDS[option]], source=ID)


REWARD = Reward()


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("upgrade", ID, "Merchant's Ledger",
                      "Goes in locked slot #3 and replaces that special action. When you use that special action, "
                      "gain 3 coins from the supply or 1 prestige.", {"goes_in": "locked slot #3"})]


@hookimpl
def darkroad_steps() -> list[Step]:
    return [REWARD]


@hookimpl
def darkroad_slot_action(ctx: Ctx, seat: int, slot: int, last_rounds: bool) -> bool | None:
    if slot != SLOT or not ctx.owns(seat, ID):
        return None
    ctx.push(REWARD.kind, seat)
    return True
