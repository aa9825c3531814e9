"""Step 1: Plan (rulebook p. 6): bump a locked night die into the action pool with a die of
the main reserve, then take the special action of the slot it left.

"Make sure to use the value of the new die, not the previous die that was bumped into your
action pool!" (slot #1, p. 6). "For the final 3 rounds of the game, your main reserve will
be empty ... simply choose one of your locked night dice and move it into your action pool.
Take the special action as normal", and slot #1 then gives "1 basic good of your choice".
"""

from __future__ import annotations

from .. import explain
from ..context import Ctx
from ..hooks import is_bool
from ..hookspecs import hookimpl
from ..i18n import N_
from ..state import PoolDie, Task
from ..steps import Choice, Option, Step
from ..wording import say


class Plan(Choice):
    """Step 1 (p. 6): optionally reset 1-2-3; bump a locked die with a reserve die
    (last 3 rounds: take a locked die), then the slot's special action."""

    kind = "plan"
    prompt = N_("plan: bump a locked die into your action pool")
    begins_phase = "plan"
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        p = ctx.player(seat)
        opts: list[Option] = []
        locked = p.locked
        if not task.data.get("reset") and None not in locked and len(set(locked)) == 1 and locked != [1, 2, 3]:
            opts.append(("reset", say("reset your locked dice to 1, 2 and 3")))
        if p.reserve:
            for slot in (1, 2, 3):
                if locked[slot - 1] is None:
                    continue
                for v in sorted(set(p.reserve)):
                    opts.append((f"bump:{slot}:{v}", say("lock a %(new)d in slot #%(slot)d, bumping its %(old)d into "
                                                          "your action pool", new=v, slot=slot, old=locked[slot - 1])))
        else:
            for slot in (1, 2, 3):
                if locked[slot - 1] is not None:
                    opts.append((f"take:{slot}", say("move the %(die)d in slot #%(slot)d to your action pool",
                                                     die=locked[slot - 1], slot=slot)))
        return opts

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        locked = ctx.player(seat).locked
        return locked.count(None) < len(locked)  # a die to bump or take; a reset needs all three

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        p = ctx.player(seat)
        locked = p.locked
        if option == "reset":
            return not task.data.get("reset") and None not in locked and len(set(locked)) == 1 \
                and locked != [1, 2, 3]
        parts = option.split(":")
        if len(parts) < 2 or parts[1] not in ("1", "2", "3") or locked[int(parts[1]) - 1] is None:
            return False
        if p.reserve:
            return len(parts) == 3 and parts[0] == "bump" and any(option == f"bump:{parts[1]}:{v}" for v in p.reserve)
        return len(parts) == 2 and parts[0] == "take"

    def details(self, ctx: Ctx, task: Task, seat: int) -> dict[str, str]:
        """What each slot does, the good slot #1 would craft, and the die it bumps (p. 6)."""
        p = ctx.player(seat)
        out = {}
        for option, _ in self.options(ctx, task, seat):
            parts = option.split(":")
            if parts[0] == "reset":
                continue
            number = int(parts[1])
            new = int(parts[2]) if parts[0] == "bump" else None
            bumped = p.locked[number - 1]
            out[option] = " ".join([explain.slot(ctx, seat, number, new, parts[0] == "take"),
                                    explain.pool_die(bumped) if bumped is not None else ""]).strip()
        return out

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        p = ctx.player(seat)
        parts = option.split(":")
        if parts[0] == "reset":
            p.locked = [1, 2, 3]
            ctx.emit("dice_reset", seat)
            ctx.push("plan", seat, reset=True)
            return
        slot = int(parts[1])
        bumped = p.locked[slot - 1]
        assert bumped is not None
        p.pool.append(PoolDie(kind="night", value=bumped))
        if parts[0] == "bump":
            v = int(parts[2])
            p.reserve.remove(v)
            p.locked[slot - 1] = v
        else:
            p.locked[slot - 1] = None
        ctx.emit("die_bumped", seat, slot=slot, to_pool=bumped, locked=p.locked[slot - 1])
        ctx.push("slot_action", seat, slot=slot, last_rounds=parts[0] == "take")


class SlotAction(Step):
    """The special action of the slot a die just left (p. 6); wagon upgrades may replace it."""

    kind = "slot_action"

    def run(self, ctx: Ctx, task: Task) -> None:
        seat, slot, last = task.seat, task.data["slot"], task.data["last_rounds"]
        if ctx.first("darkroad_slot_action", is_bool, seat=seat, slot=slot, last_rounds=last):
            return
        if slot == 1:
            ctx.gain_effects(seat, ["good:any" if last else "good:craft"], source="slot #1")
        elif slot == 2:
            ctx.push("slot2", seat)
        else:
            ctx.push("slot3", seat)


class Slot2(Choice):
    kind = "slot2"
    prompt = N_("slot #2: gain a lantern or move an illuminated die to your action pool")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        opts = [("lantern", say("gain 1 lantern"))]
        opts += [(f"illuminated:{v}", say("move your illuminated %(die)d to your action pool", die=v))
                 for v in sorted(set(ctx.player(seat).special))]
        return opts

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return True  # a lantern

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        return option == "lantern" or any(option == f"illuminated:{v}" for v in ctx.player(seat).special)

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == "lantern":
            ctx.add(seat, "lanterns", 1, "slot #2")
        else:
            move_illuminated(ctx, seat, int(option.split(":")[1]))


def move_illuminated(ctx: Ctx, seat: int, value: int) -> None:
    """Move ``seat``'s illuminated die of ``value`` from its special reserve to its action pool
    ("This is the only way to move an illuminated die into your action pool!", p. 6, but for
    the wagon upgrades that replace slot #2's action)."""
    p = ctx.player(seat)
    p.special.remove(value)
    p.pool.append(PoolDie(kind="illuminated", value=value))
    ctx.emit("illuminated_to_pool", seat, value=value)


class Slot3(Choice):
    kind = "slot3"
    prompt = N_("slot #3: gain 2 coins or rotate the market wheel")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        return [("coins", say("gain 2 coins")), ("rotate", say("rotate the market wheel 1 space clockwise"))]

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return True

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        return option in ("coins", "rotate")

    def details(self, ctx: Ctx, task: Task, seat: int) -> dict[str, str]:
        return {"rotate": explain.market_after(ctx, "rotate")}

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == "coins":
            ctx.add(seat, "coins", 2, "slot #3")
        else:
            ctx.rotate_wheel(seat)


STEPS: list[Step] = [Plan(), SlotAction(), Slot2(), Slot3()]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
