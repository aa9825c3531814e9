"""The testing kit's helpers for plugin authors (``darkroad.testing``)."""

from __future__ import annotations

import pytest

from darkroad.core import Engine, IllegalAction, NotYourDecision
from darkroad.testing import Table


def test_refuses(engine: Engine) -> None:
    t = Table.new(players=2, seed=1, engine=engine)
    assert t.decision == "plan" and t.awaiting == [0]
    before = engine.dumps(t.game)
    error = t.refuses("plan", "slot9:die1")
    assert isinstance(error, IllegalAction) and "not a legal answer" in error.reason
    assert isinstance(t.refuses("plan", t.options(0)[0], seat=1), NotYourDecision)  # not seat 1's decision
    assert engine.dumps(t.game) == before
    legal = t.legal(0)[0]
    with pytest.raises(AssertionError, match="is a legal action of seat 0"):
        t.refuses(legal.type, legal.option)
