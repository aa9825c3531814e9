"""Threy Cat, a loyal companion (rulebook p. 16, "Companions"): duplicate the value of any
travel die and gain the reward / add +1 or +2 to the face value of your travel die.

Both abilities belong to the travel dice of a caravan, so on the owner's own turn they
are offered while the caravan it leads resolves its travel dice. The +1/+2 is offered at
the owner's own travel-die decision; it adds to any other bonus (Whisper's +1), and the
core caps the face at 6.
"""

from __future__ import annotations

from darkroad.core import Choice, Ctx, Option, Task, hookimpl, i18n, is_int_list, wording
from darkroad.plugins.companions import kit

say = wording.speaker(__name__)

ID = "threy_cat"
DUPLICATE, BONUS = 0, 1
CAT_BONUS = (1, 2)
BONUS_FLAG = f"{ID}_bonus"
"""Its key of ``game.turn.extra``: the seat whose current travel-die decision has the cat's +1/+2."""
TRAVEL_DIE_MAX = 6


def duplicable(ctx: Ctx, seat: int) -> dict[int, list[str]]:
    """Values of the travel dice of the caravan ``seat`` leads (still on the table or taken,
    with their modified face), mapped to the event rewards they give; faces showing only a
    penalty or nothing give no reward to gain."""
    c = ctx.game.turn.caravan
    if c is None or c.leader != seat or c.event is None or c.dice is None:
        return {}
    if not any(t.kind == "travel_die" for t in ctx.game.stack):
        return {}
    faces = ctx.content.events[c.event].faces
    out = {}
    for v in sorted(set(c.dice) | set((c.taken or {}).values())):
        rewards = [e for e in faces[v] if e != "nothing" and not kit.is_penalty(e)]
        if rewards:
            out[v] = rewards
    return out


def duplicate(ctx: Ctx, seat: int, card: str, value: int, rewards: list[str]) -> None:
    ctx.emit("travel_die_duplicated", seat, value=value, card=card)
    ctx.gain_effects(seat, rewards, source=f"companion:{card}")


class Duplicate(Choice):
    """Which travel die value to duplicate."""

    kind = f"{ID}_duplicate"
    prompt = i18n.N_("Threy Cat: choose the travel die value to duplicate")
    inside_gain = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        return [(f"value:{v}", say("duplicate the %(die)s: %(effects)s", die=v, effects=ctx.words.effects(r)))
                for v, r in task.data["rewards"].items()]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        v = option.split(":")[1]
        duplicate(ctx, seat, task.data["card"], int(v), task.data["rewards"][v])


@hookimpl
def darkroad_travel_die_bonus(ctx: Ctx, seat: int) -> list[int] | None:
    if ctx.game.turn.extra.get(BONUS_FLAG) != seat:
        return None
    # The cat's +1/+2 stacks with every other bonus (Whisper's +1): offer the sums too.
    others = ctx.call_others(darkroad_travel_die_bonus, "darkroad_travel_die_bonus", is_int_list, seat=seat)
    stacked = {0} | {b for bonuses in others for b in bonuses}
    return sorted({cat + other for cat in CAT_BONUS for other in stacked})


class ThreyCat(kit.Companion):
    """The Threy Cat's abilities: duplicate a travel die / +1 or +2 to yours."""

    def usable(self, ctx: Ctx, seat: int, ability: int) -> bool:
        if ability == DUPLICATE:
            return bool(duplicable(ctx, seat))
        top = ctx.game.stack[-1] if ctx.game.stack else None
        turn = ctx.game.turn
        if top is None or top.kind != "travel_die" or top.seat != seat or turn.extra.get(BONUS_FLAG) == seat:
            return False
        return turn.caravan is not None and any(v < TRAVEL_DIE_MAX for v in turn.caravan.dice or ())

    def resolve(self, ctx: Ctx, seat: int, card: str, ability: int) -> None:
        if ability == BONUS:
            ctx.game.turn.extra[BONUS_FLAG] = seat
            return
        values = duplicable(ctx, seat)
        if len(values) == 1:
            ((value, rewards),) = values.items()
            duplicate(ctx, seat, card, value, rewards)
        else:
            ctx.push(Duplicate.kind, seat, card=card, rewards={str(v): r for v, r in values.items()})


companion = ThreyCat(kit.loyal(ID, "Threy Cat", [
    "Duplicate the value of any travel die and gain the reward.",
    "Add +1 or +2 to the face value of your travel die.",
]), steps=[Duplicate()])

darkroad_components = companion.components
darkroad_steps = companion.steps
darkroad_companion_options = companion.companion_options
darkroad_companion_use = companion.companion_use
