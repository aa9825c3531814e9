"""The Lamplighters' Guild, a fan building: gain 1 lantern, then you may light street
lamps: spend 1 or 2 lanterns and gain 2 prestige for each lantern spent.

A building of two parts: an immediate gain (the effect language) and a decision of its
own (:class:`LightLamps`, contributed with ``darkroad_steps``). Lighting is never
forced: the player may keep every lantern for the ruins or a shortcut.

Balance: at best 1 lantern (net) for 4 prestige; the Queen's Eyes Surveyor gives
3 prestige for 2 coins, Otho's Lanternworks a $1 good, 1 lantern and 1 prestige.
"""

from __future__ import annotations

from darkroad.core import Choice, Component, Ctx, Step, Task, hookimpl, i18n

N_ = i18n.N_  # a text kept as data, translated where it is shown (the prompt, the component's texts)
_ = i18n.messages(__name__).gettext  # a text made now, in the caller's language (the options' labels)
ngettext = i18n.messages(__name__).ngettext

ID = "lamplighters_guild"
MAX_LAMPS = 2
PRESTIGE_PER_LAMP = 2
DONE = "done"


class LightLamps(Choice):
    """Spend 1 or 2 lanterns (``"light:<n>"``), 2 prestige each, or keep them (``"done"``)."""

    kind = f"{ID}_light"  # step kinds are global: prefix them with the component id
    prompt = N_("Lamplighters' Guild: spend lanterns to light street lamps (2 prestige each)?")

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[tuple[str, str]]:
        lanterns = ctx.player(seat).lanterns
        if not lanterns:
            return []  # no option for anyone: the engine skips the decision
        lamps = [(f"light:{n}", ngettext("spend %(num)d lantern: gain %(prestige)d prestige",
                                         "spend %(num)d lanterns: gain %(prestige)d prestige", n,
                                         prestige=n * PRESTIGE_PER_LAMP))
                 for n in range(1, min(MAX_LAMPS, lanterns) + 1)]
        return [*lamps, (DONE, _("keep your lanterns"))]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == DONE:
            return
        n = int(option.removeprefix("light:"))
        ctx.pay(seat, "lanterns", n, ID)
        ctx.add(seat, "prestige", n * PRESTIGE_PER_LAMP, ID)
        ctx.emit("lamps_lit", seat, building=ID, lamps=n)


LIGHT = LightLamps()


@hookimpl
def darkroad_components() -> list[Component]:
    # No "tile": a fan building is not one side of a double-sided base game tile.
    return [Component("building", ID, N_("Lamplighters' Guild"),
                      N_("Gain 1 lantern. Then you may spend 1 or 2 lanterns: gain 2 prestige for each lantern spent."))]


@hookimpl
def darkroad_steps() -> list[Step]:
    return [LIGHT]


@hookimpl
def darkroad_activate_building(ctx: Ctx, seat: int, building: str) -> bool | None:
    if building != ID:
        return None
    # The stack resolves the last pushed first: push the decision, then the gain, so that
    # the new lantern can be spent at once.
    ctx.push(LIGHT.kind, seat)
    ctx.gain_effects(seat, ["lantern:1"], source=ID)
    return True
