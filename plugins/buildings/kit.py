"""What the buildings that cost something share: "Spend X or Y, then gain Z" (rulebook p. 15).

A building of that form contributes one :class:`SpendToGain` decision. Activating the
building calls :meth:`SpendToGain.activate`, which pushes the decision, or, when the
player can pay none of the costs (or there is nothing to gain), emits a
``building_unused`` event saying why and does nothing else.

Options of the decision: one per payable cost (``"coins"``, ``"quartz"``, ``"lantern"``,
``"good:<token>"`` for a good accepted as payment) and ``"decline"``. Spending is never
forced: an illuminated die activates the connected building whether the player wants
its trade or not, so the player may spend nothing and gain nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from darkroad.core import EFFECT_RESOURCE, Choice, Component, Ctx, Option, Step, Task, hookimpl, wording

DECLINE = "decline"
NOUNS = {"coins": "coins", "quartz": "blazing quartz", "lantern": "lantern"}
"""Cost option id -> the word for the item in labels (kept for plugins that read it; labels
count it: :data:`COUNTED`)."""
COUNTED = {"coins": "coins", "quartz": "quartz", "lantern": "lanterns"}
"""Cost option id -> the thing counted (:func:`darkroad.core.wording.count`)."""
say = wording.speaker(__name__)


def unused(ctx: Ctx, seat: int, building: str, reason: str) -> None:
    """Record that activating ``building`` did nothing for ``seat``, and why."""
    ctx.emit("building_unused", seat, building=building, reason=reason)


class SpendToGain(Choice):
    """Spend one of the building's costs, then gain its reward.

    Subclasses set ``kind`` (prefixed with the building id), ``prompt``, ``building``,
    ``costs`` (cost option id -> amount, e.g. ``{"coins": 2, "quartz": 1}``), ``cost_text``
    (the costs in words) and either ``effects`` (the reward as effect strings) or an
    override of :meth:`reward`. Buildings that accept goods as payment override
    :meth:`payable_goods`; those whose reward can run out override :meth:`reward_available`.
    """

    building: ClassVar[str] = ""
    costs: ClassVar[Mapping[str, int]] = {}
    cost_text: ClassVar[str] = ""
    effects: ClassVar[Sequence[str]] = ()

    def payable_goods(self, ctx: Ctx, seat: int) -> list[str]:
        """Good tokens ``seat`` holds that the building accepts as payment."""
        return []

    def reward_available(self, ctx: Ctx, seat: int) -> str | None:
        """``None`` when there is something to gain, else the reason there is not."""
        return None

    def reward(self, ctx: Ctx, seat: int) -> None:
        """Gain the building's reward (after paying)."""
        ctx.gain_effects(seat, self.effects, source=self.building)

    def payments(self, ctx: Ctx, seat: int) -> list[Option]:
        """The costs ``seat`` can pay now, as options."""
        p = ctx.player(seat)
        opts = [(cost, say("spend %(what)s", what=wording.count(n, COUNTED[cost]))) for cost, n in self.costs.items()
                if getattr(p, EFFECT_RESOURCE[cost]) >= n]
        opts += [(f"good:{g}", say("spend your %(good)s", good=ctx.words.good(g)))
                 for g in sorted(set(self.payable_goods(ctx, seat)))]
        return opts

    def activate(self, ctx: Ctx, seat: int) -> None:
        """Resolve an activation of the building by ``seat``."""
        nothing = self.reward_available(ctx, seat)
        if nothing:
            unused(ctx, seat, self.building, nothing)
        elif not self.payments(ctx, seat):
            unused(ctx, seat, self.building, f"cannot spend {self.cost_text}")
        else:
            ctx.push(self.kind, seat)

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        pays = self.payments(ctx, seat)
        if not pays or self.reward_available(ctx, seat):
            return []
        return [*pays, (DECLINE, "spend nothing and gain nothing")]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == DECLINE:
            unused(ctx, seat, self.building, "declined")
            return
        verb, _, good = option.partition(":")
        if verb == "good":
            ctx.lose_good(seat, good, self.building)
        else:
            ctx.pay(seat, EFFECT_RESOURCE[verb], self.costs[verb], self.building)
        self.reward(ctx, seat)


class PayBuilding:
    """A building whose activation is a spend-to-gain decision: the three hooks it needs.

    A module binds them (``darkroad_components = building.components`` and so on); bound
    methods carry the ``hookimpl`` marker like functions do.
    """

    def __init__(self, component: Component, pay: SpendToGain, *more_steps: Step) -> None:
        self.component = component
        self.pay = pay
        self.all_steps = [pay, *more_steps]

    @hookimpl(specname="darkroad_components")
    def components(self) -> list[Component]:
        return [self.component]

    @hookimpl(specname="darkroad_steps")
    def steps(self) -> list[Step]:
        return list(self.all_steps)

    @hookimpl(specname="darkroad_activate_building")
    def activate(self, ctx: Ctx, seat: int, building: str) -> bool | None:
        if building != self.component.id:
            return None
        self.pay.activate(ctx, seat)
        return True
