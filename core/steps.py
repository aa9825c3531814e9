"""The step protocol: every entry of the engine's stack is handled by a :class:`Step`.

A step is either *automatic* (``decision = False``: the engine pops it and calls
:meth:`Step.run`) or a *decision* (it waits for an action). For a decision the engine
enumerates :meth:`Step.options` for each awaited seat; when a seat answers, the engine
pops the task and calls :meth:`Step.choose`. A decision that must stay pending (a
repeated choice, or a simultaneous one with seats still to answer) pushes its task
back before pushing any follow-up steps. A decision with no options for any seat is
skipped.

The rulebook's steps live in :mod:`.rulebook`, one module per part; plugins contribute
theirs through the ``darkroad_steps`` hook.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

from . import i18n

if TYPE_CHECKING:
    from .context import Ctx
    from .state import Task

Option = tuple[str, str]
"""``(option id, human label)``."""


class Step:
    kind: ClassVar[str] = ""
    decision: ClassVar[bool] = False
    prompt: ClassVar[str] = ""
    settles_overflow: ClassVar[bool] = False
    """An overflow discard (rulebook p. 18), called for by :meth:`Ctx.overflow`: it comes
    before anything the step that caused the overflow pushed, and while it waits it is the
    only thing that can be done (no companion ability, no plugin's extra option)."""
    inside_gain: ClassVar[bool] = False
    """A decision that only picks what a gain already chosen gives (which wagon upgrade the
    good fortune brings, which good or hero an effect gives, which gift a triggered companion
    takes): the gain resolves as one act, so no companion ability comes in between
    (docs/content.md, "Timing rulings", item 1)."""
    begins_phase: ClassVar[str] = ""
    """The phase of the turn (``game.phase``) this step begins: the engine sets it when the
    step comes to the top of the stack, before its options are asked (queries such as
    :meth:`options` never change the game)."""
    logs_answer: ClassVar[bool] = False
    """A decision whose ``choose`` emits an event naming the answer itself (the rulebook's
    decisions all do: ``moved``, ``bought``, ...): the engine then leaves out its ``answered``
    event, which otherwise logs the answer, private to the seat."""
    checkpoint: ClassVar[bool] = False
    """Running or answering this step makes the action a checkpoint: the acting seat cannot
    undo it, nor anything before it (core/undo.py). The engine finds chance, private events
    and revealed cards itself; set this for what only the step knows."""
    engages: ClassVar[tuple[str, ...]] = ()
    """Keys of the task's data naming a card this pending step has engaged (the hero being
    sold to at the Ringway Inn): the card stays where it is but is not available to anything
    else until the step is done (:meth:`Ctx.engaged`)."""

    def run(self, ctx: Ctx, task: Task) -> None:
        """Resolve an automatic step (already popped)."""
        raise NotImplementedError

    def seats(self, ctx: Ctx, task: Task) -> Sequence[int]:
        """The seats this decision waits for (default: the task's seat)."""
        return (task.seat,)

    def options(self, ctx: Ctx, task: Task, seat: int) -> Sequence[Option]:
        """Every legal answer of ``seat``."""
        raise NotImplementedError

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        """Whether ``seat`` has at least one answer: ``bool(options(...))``, which a step may
        say without listing and wording every option. The engine asks it while settling (a
        decision with no option for any seat is skipped); an override must agree with
        :meth:`options` at every position (``tests/test_step_shortcuts.py`` checks the
        rulebook's over random games)."""
        return bool(self.options(ctx, task, seat))

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        """Whether ``option`` is the id of one of ``seat``'s answers (:meth:`options`), which a
        step may say without wording every option. The engine asks it to check an answer
        before resolving it; an override must agree with :meth:`options`, as above."""
        return any(o == option for o, _ in self.options(ctx, task, seat))

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        """Apply ``seat``'s answer ``option`` (the task was popped)."""
        raise NotImplementedError

    def details(self, ctx: Ctx, task: Task, seat: int) -> Mapping[str, str]:
        """What some of ``seat``'s answers give, in words: option -> a sentence or two the label
        has no room for (the good a slot would craft, the prices at the Great Bazaar, an event
        card's faces). Default: none. The API lists them as each action's ``details``."""
        return {}

    def describe(self, ctx: Ctx, task: Task) -> str:
        """A human sentence for the pending decision, in the caller's language: :attr:`prompt`
        (marked with ``N_`` where it is written) translated in the domain of the step's package
        (its plugin's catalog; the core's for the rulebook's steps)."""
        if not self.prompt:
            return self.kind.replace("_", " ")
        if i18n.locale_now() == i18n.DEFAULT_LOCALE:
            return self.prompt  # English, the source language, is the message itself (as ``say``'s)
        domain = i18n.domain_of(type(self).__module__)
        return self.prompt if domain is None else domain.gettext(self.prompt)

    def automated(self, ctx: Ctx, task: Task, seat: int) -> bool:
        """Answer this decision (``task``, on top of the stack) for ``seat``, an automated seat
        (a seat kind's: it has no legal actions), through the rule point's hook a seat kind
        implements (``darkroad_caravan_join``, ...), taking ``task`` off the stack; ``True``
        when a plugin answered. The default, and a hook no plugin answers: ``False``, and the
        seat kind decides (:meth:`SeatKind.intercept`)."""
        return False


class Choice(Step):
    """A decision whose options and consequences are given by two small functions.

    Most decisions are "pick one of these": subclasses implement :meth:`options` and
    :meth:`choose`; this class only marks it a decision.
    """

    decision = True
