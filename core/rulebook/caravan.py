"""A caravan to an outlying town, steps 1 and 2 (rulebook "Step 1: Prepare the Caravan" and
"Step 2: Resolve an Event", pp. 11–12); step 3 is :mod:`.deliveries`, step 4
:mod:`.good_fortune`.

"Choose one available companion ... You may choose the top card of the companion deck
instead." "In order to choose a shortcut, you must spend 3 lanterns." "Each other player
must declare with a "yes" or "no" whether they would like to join the caravan. This happens
in clockwise seating order." "Take 1 travel die from the supply for every player in the
caravan (including you). If you chose the companion with the extra travel die, add that die
too." On the dark road "the leader chooses first", on a shortcut "the player on the leader's
left chooses first"; "Before a player chooses a travel die, they may spend 1 lantern to
reroll all remaining travel dice once. They may repeat this multiple times."
"""

from __future__ import annotations

from .. import explain
from ..context import Ctx
from ..hooks import is_bool, is_int, is_int_list
from ..hookspecs import hookimpl
from ..i18n import N_
from ..state import Caravan, CompanionCard, Task
from ..steps import Choice, Option, Step
from ..wording import count, say

SHORTCUT_LANTERNS = 3
TRAVEL_DIE_MAX = 6


def shortcut_cost(ctx: Ctx, seat: int) -> int:
    """Lanterns ``seat`` pays for a shortcut: 3, or what ``darkroad_shortcut_cost`` says."""
    cost = ctx.first("darkroad_shortcut_cost", is_int, seat=seat)
    return SHORTCUT_LANTERNS if cost is None else cost


def caravan(ctx: Ctx) -> Caravan:
    """The caravan under way (a step of a caravan runs only while there is one)."""
    c = ctx.game.turn.caravan
    assert c is not None, "no caravan under way"
    return c


class CaravanCompanion(Choice):
    """Choose one available companion or the top of the companion deck; the card farthest
    from the deck brings its travel die."""

    kind = "caravan_companion"
    prompt = N_("caravan: choose a companion")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        b = ctx.game.board
        opts = []
        for i, card in enumerate(b.companion_row):
            if card:
                name = ctx.words.component(card)
                opts.append((f"row:{i}", say("take %(companion)s with the extra travel die", companion=name) if i == 2
                             else say("take %(companion)s", companion=name)))
        if b.companion_deck:
            opts.append(("deck", say("take the top card of the companion deck")))
        return opts

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        b = ctx.game.board
        return any(b.companion_row) or bool(b.companion_deck)

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        b = ctx.game.board
        if option == "deck":
            return bool(b.companion_deck)
        return option in [f"row:{i}" for i, card in enumerate(b.companion_row) if card]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        b = ctx.game.board
        card: str | None
        if option == "deck":
            card, extra = b.companion_deck.pop(0), False
        else:
            i = int(option.split(":")[1])
            card, extra = b.companion_row[i], i == 2
            b.companion_row[i] = None
        assert card is not None
        ctx.player(seat).companions.append(CompanionCard(card=card))
        ctx.emit("companion_taken", seat, card=card, companion=ctx.content.companion_cards.get(card, card),
                 travel_die=extra)
        ctx.game.turn.extra_die = extra


def _routes(ctx: Ctx, seat: int) -> list[str]:
    """The routes ``seat`` can lead a caravan by: the dark road, and a shortcut while it has the
    lanterns to pay for one."""
    return ["dark_road", "shortcut"] if ctx.player(seat).lanterns >= shortcut_cost(ctx, seat) else ["dark_road"]


class CaravanRoute(Choice):
    """Declare the route (dark road, or a shortcut for 3 lanterns) and the destination."""

    kind = "caravan_route"
    prompt = N_("caravan: declare the route and the destination town")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        routes = _routes(ctx, seat)
        cost = shortcut_cost(ctx, seat)
        words = ctx.words
        opts = []
        for route in routes:
            for town in ctx.content.towns:
                if route == "dark_road":
                    label = say("take the dark road to %(town)s", town=words.town(town))
                elif cost:
                    label = say("take a shortcut to %(town)s (pay %(lanterns)s)", town=words.town(town),
                                lanterns=count(cost, "lanterns"))
                else:
                    label = say("take a shortcut to %(town)s", town=words.town(town))
                opts.append((f"{route}:{town}", label))
        return opts

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return bool(ctx.content.towns)  # the dark road to any town

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        route, _, town = option.partition(":")
        return town in ctx.content.towns and route in _routes(ctx, seat)

    def details(self, ctx: Ctx, task: Task, seat: int) -> dict[str, str]:
        """What a hero delivered to each town gives (p. 19)."""
        return {option: explain.town_reward(ctx, option.partition(":")[2]) for option, _ in self.options(ctx, task, seat)}

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        route, town = option.split(":")
        declare(ctx, seat, route, town)


def declare(ctx: Ctx, seat: int, route: str, town: str) -> None:
    """``seat`` leads a caravan by ``route`` to ``town``: it pays the shortcut's lanterns, the
    other seats say in turn whether they join, then the event."""
    if route == "shortcut":
        ctx.pay(seat, "lanterns", shortcut_cost(ctx, seat), "shortcut")
    n = len(ctx.game.players)
    others = [(seat + k) % n for k in range(1, n)]
    turn = ctx.game.turn
    turn.caravan = Caravan(leader=seat, route=route, town=town, members=[seat], extra_die=turn.extra_die)
    turn.extra_die = False
    ctx.emit("caravan_declared", seat, route=route, town=town)
    ctx.push("caravan_event", seat)
    for other in reversed(others):
        ctx.push("caravan_join", other)


class CaravanJoin(Choice):
    """Each other player, clockwise, says yes or no to joining the caravan."""

    kind = "caravan_join"
    prompt = N_("join the caravan?")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        c = caravan(ctx)
        town = ctx.words.town(c.town)
        join = say("join the caravan to %(town)s by the dark road", town=town) if c.route == "dark_road" \
            else say("join the caravan to %(town)s by a shortcut", town=town)
        return [("yes", join), ("no", say("stay home"))]

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return True

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        return option in ("yes", "no")

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == "yes":
            caravan(ctx).members.append(seat)
        ctx.emit("caravan_answer", seat, join=option == "yes")

    def automated(self, ctx: Ctx, task: Task, seat: int) -> bool:
        joins = ctx.first("darkroad_caravan_join", is_bool, seat=seat)
        if joins is None:
            return False
        ctx.pop(task)
        self.choose(ctx, task, seat, "yes" if joins else "no")
        return True


class CaravanEvent(Step):
    """Reveal the route's event card, roll 1 travel die per member (+1 for the companion's)."""

    kind = "caravan_event"

    def run(self, ctx: Ctx, task: Task) -> None:
        c = caravan(ctx)
        deck = ctx.game.board.events[c.route]
        event = deck.pop(0)
        deck.append(event)
        dice = sorted(ctx.roll() for _ in range(len(c.members) + (1 if c.extra_die else 0)))
        c.event, c.dice, c.rolled = event, dice, list(dice)
        ctx.emit("event_revealed", task.seat, event=event, name=ctx.content.events[event].name, dice=dice)
        leader, members = c.leader, c.members
        n = len(ctx.game.players)
        ordered = sorted(members, key=lambda s: (s - leader) % n)  # leader, then clockwise
        if c.route == "shortcut":
            ordered = ordered[1:] + ordered[:1]  # leader's left first, leader last
        ctx.push("good_fortune", leader, left=2 if c.route == "shortcut" else 1)
        ctx.push("deliveries", -1, final=False, pending=list(ordered), town={})
        for seat in reversed(ordered):
            ctx.push("travel_die", seat)


class TravelDie(Choice):
    """Take 1 travel die (rewards/penalties by the event card); before choosing, pay 1
    lantern to reroll all remaining dice, as often as you like."""

    kind = "travel_die"
    prompt = N_("caravan: take a travel die")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        c = caravan(ctx)
        assert c.event is not None and c.dice is not None  # rolled by the caravan's event
        dice = c.dice
        ev = ctx.content.events[c.event]
        bonuses = sorted({0} | {b for bs in ctx.call("darkroad_travel_die_bonus", is_int_list, seat=seat) for b in bs})
        opts = []
        for v in sorted(set(dice)):
            faces = set()
            for bonus in bonuses:
                face = min(TRAVEL_DIE_MAX, v + bonus)
                if face in faces:
                    continue  # a bonus beyond the cap changes nothing
                faces.add(face)
                tag = f"take:{v}" + (f":+{bonus}" if bonus else "")
                effects = ctx.words.effects(ev.faces[face])
                opts.append((tag, say("take the %(die)d (+%(bonus)d = %(face)d): %(effects)s", die=v, bonus=bonus,
                                      face=face, effects=effects) if bonus
                             else say("take the %(die)d: %(effects)s", die=v, effects=effects)))
        if ctx.player(seat).lanterns and dice:
            opts.append(("reroll", say("pay 1 lantern to reroll the remaining dice")))
        return opts

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return bool(caravan(ctx).dice)  # each die is taken as it shows, at least

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        dice = caravan(ctx).dice or []
        if option == "reroll":
            return bool(ctx.player(seat).lanterns and dice)
        verb, _, rest = option.partition(":")
        die = rest.partition(":")[0]
        v = next((d for d in dice if str(d) == die), None)
        if verb != "take" or v is None:
            return False
        bonuses = sorted({0} | {b for bs in ctx.call("darkroad_travel_die_bonus", is_int_list, seat=seat) for b in bs})
        faces = set()
        for bonus in bonuses:  # as options words them: a bonus beyond the cap is no answer
            face = min(TRAVEL_DIE_MAX, v + bonus)
            if face not in faces:
                faces.add(face)
                if option == f"take:{v}" + (f":+{bonus}" if bonus else ""):
                    return True
        return False

    def details(self, ctx: Ctx, task: Task, seat: int) -> dict[str, str]:
        """The event card's faces (p. 12: "compare the die's face value with the event card")."""
        event = caravan(ctx).event
        faces = explain.event_faces(ctx, event) if event else ""
        return {option: faces for option, _ in self.options(ctx, task, seat)} if faces else {}

    def automated(self, ctx: Ctx, task: Task, seat: int) -> bool:
        dice = caravan(ctx).dice or []

        def one_of_the_dice(die: object) -> bool:
            return is_int(die) and die in dice

        die = ctx.first("darkroad_travel_die", one_of_the_dice, seat=seat)
        if die is None:
            return False
        ctx.pop(task)
        self.choose(ctx, task, seat, f"take:{die}")
        return True

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        c = caravan(ctx)
        assert c.dice is not None and c.rolled is not None and c.event is not None  # rolled by the event
        if option == "reroll":
            ctx.pay(seat, "lanterns", 1, "travel die reroll")
            c.dice = sorted(ctx.roll() for _ in c.dice)
            c.rolled += c.dice
            ctx.emit("travel_dice_rerolled", seat, dice=list(c.dice))
            ctx.push("travel_die", seat)
            return
        parts = option.split(":")
        v = int(parts[1])
        bonus = int(parts[2]) if len(parts) > 2 else 0
        c.dice.remove(v)
        face = min(TRAVEL_DIE_MAX, v + bonus)
        ctx.emit("travel_die_taken", seat, die=v, face=face)
        if c.taken is None:
            c.taken = {}
        c.taken[str(seat)] = face
        ctx.gain_effects(seat, ctx.content.events[c.event].faces[face], source=f"event:{c.event}")


STEPS: list[Step] = [CaravanCompanion(), CaravanRoute(), CaravanJoin(), CaravanEvent(), TravelDie()]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
