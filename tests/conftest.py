"""Shared fixtures: one engine per test session (plugins load once)."""

from __future__ import annotations

import pytest

from darkroad.core import Engine
from darkroad.core.testing import Table

FIRST_GAME = ["blazing_quartz_mine", "oracle_of_lumi", "othos_lanternworks", "yedls_workshop"]


@pytest.fixture(scope="session")
def engine() -> Engine:
    return Engine.load(strict=True)


@pytest.fixture
def table(engine: Engine):
    """A factory of tables sharing the session engine."""

    def make(players: int = 2, seed: int = 1, **kw) -> Table:
        return Table.new(players=players, seed=seed, engine=engine, **kw)

    return make
