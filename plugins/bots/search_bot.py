"""The ``search`` bot: determinized rollouts over the public engine, to a budget of work.

It never looks at what its seat cannot see. Each sample is a world its seat cannot tell
from the real game (:meth:`Engine.determinize`: the other seats' deeds and coins, the
order of every deck and the dice to come drawn again), and every legal action is tried in
that same world (common random numbers: the actions are compared on equal luck). After an
action, the rollout plays the seat's own next follow-up decisions (``horizon`` of them, 1 by
default), then the reply of the next other seat to act (``replies``, 1 by default), each move
by a one-step policy (the move :func:`estimate` values most for the seat making it, as the
greedy bot would), and values the position as its lead over the best other seat (its own
:func:`estimate` minus the best of theirs; the final scores when the game ended). The reply
makes it see what its move leaves to the others: the hero, companion or commission it leaves
in reach, the caravan it makes worth joining. That valuation has weights of its own
(:data:`SURPLUS`, :data:`COMMISSION_SHARE`): it counts coins beyond prestige (or prestige
beyond coins) and commissions not yet delivered for less than the greedy bot does. Samples
are drawn until the budget is spent (``trials``: actions tried, applied to a copy of a world,
in all the rollouts of a decision, :data:`TRIALS` by default; at least one sample; it stops
before a sample that would go past the budget, as big as the mean sample so far), and the
action with the best mean value is played.

The budget counts work, not time, so the bot's answers do not depend on the machine or its
load: the same position always gets the same answer and a game of bots replays identically
from its seed. A trial (a copy, an action applied, a position valued) costs about the same
whatever the decision, so the budget bounds the time too: docs/bots.md has the distribution
of the time a decision takes (``benchmarks/think_time.py``). ``think_time`` is a safety limit
beside it, in CPU seconds of the thinking thread (:data:`THINK_TIME` by default): a decision
whose trials cost far more than the base game's (a fan plugin's content) stops there. It
does not trigger with the base game.

The budget is a limit, not a quota: the bot stops sooner once more samples could not change
its answer. After ``MIN_SAMPLES`` samples it compares the leading action with every other one
sample by sample (a paired comparison, as both were tried in the same worlds). When each other
action is behind by more than ``Z`` standard errors of that difference, or never differed from
the leader in any sample (the same outcome whatever the hidden cards), it answers. Clear
decisions (a purchase nobody would refuse, equivalent ways of doing one thing) then take a few
milliseconds, and the budget goes to the close ones.

The differences from ``greedy``: it averages over many worlds it cannot tell apart (greedy
plays on one), it weighs what the others stand to gain, and it values positions with weights
of its own. What makes it stronger is the valuation and the reply, not more search. The
figures that follow were measured against greedy when greedy still looked ahead on copies of
the real game (it saw the dice to come; docs/bots.md has today's): 2-player games against
greedy at a fixed number of samples (8 a decision unless said), seeds 50000-50119, each variant the same 120 games: with a commission
in hand at 0.5 of what the goods held would deliver to it, 68.3%; at 0.4, 79.2%; at 0.3,
76.7%; at 0.5 with one reply, 80.8% (mean score 28.6 against 18.1). With greedy's weights
(seeds 0-39), 12 samples won 47.5% of the games and 30 samples 45%; at seeds 1000-1039, where
rollouts of 1 follow-up won 65%, rollouts of 2 of its own follow-ups won 45% and rollouts to
the end of its turn 20%: the heuristic values a position one follow-up decision on, as the
greedy bot uses it, and is not consistent between a turn under way and a finished one.

Options (``Bot.configured``): ``trials`` (the budget; ``none``: none), ``think_time`` (CPU
seconds per decision at most; ``none``: no limit; given without ``trials``, it is the budget,
as a bot seat's ``think_time`` of the API always was, and a game is then not replayed
identically), ``samples`` (a fixed
number of samples, no early answer), ``horizon`` (how many follow-up decisions of its own a
rollout plays at most), ``replies`` (how many moves of the other seats it then plays; 0: none).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple

from darkroad.core import Action, Bot, Engine, Game, InfoState, hookimpl
from darkroad.plugins.bots.kit import STOP_OPTIONS, can_cycle, estimate, stop_repeat

TRIALS = 250
"""Actions tried per decision at most, by default: the lobby's default bot and timeout bot answer
within 100 ms a decision on a worker (issue 40; docs/bots.md has the distribution, measured with
benchmarks/think_time.py)."""
THINK_TIME = 0.2
"""CPU seconds per decision at most, by default: a safety limit beside :data:`TRIALS`, twice the
longest base-game decision measured, so that it never decides a base-game answer."""
LOSS = -1e9
"""The value of an action that fails in a sample (a plugin could not resolve it there)."""
MIN_SAMPLES = 8
"""Samples drawn before the bot may stop short of its budget."""
Z = 3.0
"""Standard errors by which every other action must trail the leader for the bot to stop early
(one-sided, about 1 in 740 under a normal law; each comparison is made after every sample, so
the bar is set high)."""


class Thought(NamedTuple):
    """How the search bot reached an answer (:meth:`SearchBot.think`)."""

    action: Action
    samples: int
    """Worlds drawn (each action rolled out in every one)."""
    trials: int
    """Actions tried (applied to a copy of a world) in all the rollouts."""
    stop: str
    """What ended the search: ``budget`` (its samples or trials), ``settled`` (more samples
    could not change the answer) or ``clock`` (the safety limit ``think_time``)."""


class SearchBot(Bot):
    """Determinized rollouts to a budget of trials (or of time, or a number of samples)."""

    id = "search"
    name = "Search"
    text = ("Tries every legal action in many worlds drawn from what it can see (never peeking at hidden cards or "
            "dice) and keeps the one that leaves it furthest ahead on average (a fixed amount of thinking per "
            "decision: the same position always gets the same answer).")
    options: ClassVar[Mapping[str, str]] = {
        "trials": f"actions tried (applied to a copy of a sampled world) per decision at most (default {TRIALS}); "
                  "it answers sooner once more samples could not change its choice. A budget of work, not of "
                  "time: the same position always gets the same answer",
        "think_time": f"CPU seconds per decision at most (default {THINK_TIME}, a safety limit beside the "
                      "trials); given without 'trials' it is the budget (the bot then thinks to the clock, and "
                      "its answers depend on the machine); 'none' for no limit",
        "samples": "a fixed number of sampled worlds per decision instead (no early answer, no rollout budget)",
        "horizon": "follow-up decisions of its own a rollout plays at most (default 1)",
        "replies": "moves of the other seats a rollout then plays, each the move that seat's one-step "
                   "policy values most (default 1)",
    }

    def __init__(self, think_time: float | None = THINK_TIME, samples: int | None = None, horizon: int = 1,
                 replies: int = 1, trials: int | None = TRIALS) -> None:
        self.think_time = think_time
        self.samples = samples
        self.horizon = horizon
        self.replies = replies
        self.trials = trials

    def configured(self, **options: Any) -> Bot:
        super().configured(**options)  # refuses unknown names
        settings = {"think_time": self.think_time, "samples": self.samples, "horizon": self.horizon,
                    "replies": self.replies, "trials": self.trials, **options}
        if "think_time" in options and "trials" not in options:
            settings["trials"] = None  # a think time alone is the budget, as a bot seat's think_time always was
        for name in ("think_time", "trials"):
            if isinstance(settings[name], str) and settings[name].lower() in ("none", ""):
                settings[name] = None
        return SearchBot(**settings)

    def decide(self, state: InfoState) -> Action:
        return self.search(state.engine, state.seat, state.legal, state.sample, state.rng)

    def search(self, engine: Engine, seat: int, legal: Sequence[Action], draw: Callable[[random.Random], Game],
               rng: random.Random) -> Action:
        """The action of ``legal`` with the best mean rollout value over worlds drawn with
        ``draw(rng)`` (:meth:`InfoState.sample`), until the budget is spent."""
        if len(legal) == 1:
            return legal[0]
        return self.think(engine, seat, legal, draw, rng).action

    def think(self, engine: Engine, seat: int, legal: Sequence[Action], draw: Callable[[random.Random], Game],
              rng: random.Random) -> Thought:
        """:meth:`search`'s answer with how it was reached (how many samples and trials, what
        stopped it)."""
        start = _clock()
        deadline = start + self.think_time if self.think_time is not None else math.inf
        budget = math.inf if self.samples is not None or self.trials is None else self.trials
        values: list[list[float]] = [[] for _ in legal]
        drawn = tried = 0
        cyclic: bool | None = None
        while True:
            world = draw(rng)
            if cyclic is None:
                cyclic = can_cycle(engine, world, seat, legal)
            for i, action in enumerate(legal):
                value, n = self._rollout(engine, world, seat, action, cyclic)
                values[i].append(value)
                tried += n
            drawn += 1
            # Stop when the next sample, as big as the mean one so far, would go past the budget.
            if drawn >= (self.samples or math.inf) or tried + tried / drawn > budget:
                stop = "budget"
                break
            if self.samples is None and drawn >= MIN_SAMPLES and settled(values):
                stop = "settled"
                break
            if deadline < math.inf:
                now = _clock()
                if now + (now - start) / drawn > deadline:
                    stop = "clock"
                    break
        best = max(range(len(legal)), key=lambda i: (sum(values[i]), legal[i].option in STOP_OPTIONS))
        return Thought(legal[best], drawn, tried, stop)

    def _rollout(self, engine: Engine, world: Game, seat: int, action: Action, cyclic: bool) -> tuple[float, int]:
        """``action`` in ``world`` (a copy of it), the seat's follow-ups, then the other seats'
        replies: the lead it leaves, and how many actions it tried (applied to a copy)."""
        trial = engine.copy(world)
        tried = 1
        try:
            engine.apply(trial, action, track_undo=False)
            if cyclic and action.type != "companion":
                stop_repeat(engine, trial, seat, action.type)
            for _ in range(self.horizon):
                if trial.finished or engine.awaiting(trial) != [seat]:
                    break
                trial, n = self._step(engine, trial, seat, strict=True)
                tried += n
        except Exception:  # an action a plugin cannot resolve is simply not chosen
            return LOSS, tried
        for _ in range(self.replies):
            if trial.finished:
                break
            others = [s for s in engine.awaiting(trial) if s != seat]
            if not others:
                break
            trial, n = self._step(engine, trial, others[0], strict=False)
            tried += n
        return lead(engine, trial, seat), tried

    @staticmethod
    def _step(engine: Engine, game: Game, seat: int, strict: bool) -> tuple[Game, int]:
        """The position after ``seat``'s move by the one-step policy: of its legal actions, the
        one :func:`estimate` (greedy's weights) values most one step on, stopping a repeatable
        choice on a tie, so a rollout never trades in circles; and how many actions it tried.
        ``strict``: an action a plugin cannot resolve fails the rollout (the bot's own moves);
        else it is passed over (another seat's reply), and ``game`` is returned when no action
        resolves."""
        best, best_value = game, float("-inf")
        tried = 0
        for action in engine.legal_actions(game, seat):
            if action.type == "companion":
                continue
            trial = engine.copy(game)
            tried += 1
            try:
                engine.apply(trial, action, track_undo=False)
            except Exception:
                if strict:
                    raise
                continue
            value = estimate(engine, trial, seat) + (1e-6 if action.option in STOP_OPTIONS else 0.0)
            if value > best_value:
                best, best_value = trial, value
        return best, tried


def _clock() -> float:
    """The CPU time of the thread that thinks: a limit of CPU time does not shrink when other
    processes share the core."""
    return time.thread_time()


def settled(values: Sequence[Sequence[float]]) -> bool:
    """Whether more samples could not change the answer: ``values[i][k]`` is action ``i``'s
    value in sample ``k``. Each other action either trails the leader by more than ``Z``
    standard errors of their paired difference, or never differed from it."""
    n = len(values[0])
    leader = max(range(len(values)), key=lambda i: sum(values[i]))
    for i, other in enumerate(values):
        if i == leader:
            continue
        diffs = [a - b for a, b in zip(values[leader], other, strict=True)]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        if var == 0.0:
            continue  # the same difference in every world (none, or always behind): more samples agree
        if mean <= Z * math.sqrt(var / n):
            return False
    return True


SURPLUS = 0.1
"""What the larger of coins and prestige counts for, beyond the smaller (the base score), when
the bot values where a rollout ended (the greedy bot counts 0.2). Both bots end their games with
about 8 coins more than prestige, and the final score counts only the smaller."""
COMMISSION_SHARE = 0.4
"""What a commission in hand counts for, as a share of the prestige the goods held would deliver
to it (the greedy bot counts 0.75): a delivery needs a caravan to its town first. Against greedy,
120 games at 8 samples a decision (seeds 50000-50119): 0.5 won 68.3% of them, 0.4 79.2% and
0.3 76.7%; an earlier 80 (seeds 0-79): 0.6 won 65%, 0.5 77.5%."""


def lead(engine: Engine, game: Game, seat: int) -> float:
    """How far ``seat`` is ahead of the best other seat: final scores when the game is over,
    :func:`estimate` before (with the bot's own weights: :data:`SURPLUS`, :data:`COMMISSION_SHARE`)."""
    values = [estimate(engine, game, s, surplus=SURPLUS, commission_share=COMMISSION_SHARE) for s in range(len(game.players))]
    return values[seat] - max(v for s, v in enumerate(values) if s != seat)


@hookimpl
def darkroad_bots() -> list[Bot]:
    return [SearchBot()]
