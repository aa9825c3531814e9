"""``darkroad.env``: darkroad as reinforcement-learning environments.

* :func:`env` (and :class:`raw_env`, unwrapped): a PettingZoo AEC environment, one agent per
  seat the agents play (``seat_0`` ...), the automated seats (the Private Concern's) playing
  inside it;
* :func:`single`: a Gymnasium environment for one seat, the other seats played by installed
  bots, with ``action_masks()`` for sb3-contrib's ``MaskablePPO``; registered with Gymnasium
  as :data:`ENV_ID`.

Both act in a fixed ``Discrete(N)`` space over the action catalogue (:class:`ActionCatalogue`)
and observe a fixed-size encoding of the seat's view (:class:`Layout`). docs/agents.md tells
them in full. Installed with ``pip install "darkroad[rl]"`` (PettingZoo, Gymnasium, NumPy);
imports only ``darkroad.core`` of darkroad.
"""

from __future__ import annotations

try:
    import gymnasium
    import numpy  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as exc:  # pragma: no cover - what a user without the extra sees
    raise ImportError(f"darkroad.env needs the rl extra: pip install 'darkroad[rl]' ({exc})") from exc

from .aec import env, raw_env
from .catalogue import OVERFLOW, ActionCatalogue
from .match import REWARDS
from .observation import MAX_SEATS, Layout
from .single import SingleSeatEnv, single

ENV_ID = "darkroad/Darkroad-v0"
"""The Gymnasium id of :class:`SingleSeatEnv`: ``gymnasium.make("darkroad/Darkroad-v0", players=2)``
once ``darkroad.env`` is imported, or ``gymnasium.make("darkroad.env:darkroad/Darkroad-v0")``,
which imports it."""

if ENV_ID not in gymnasium.registry:  # a module imported twice (``importlib.reload``) registers once
    gymnasium.register(id=ENV_ID, entry_point="darkroad.env.single:SingleSeatEnv")

__all__ = ["ENV_ID", "MAX_SEATS", "OVERFLOW", "REWARDS", "ActionCatalogue", "Layout", "SingleSeatEnv", "env", "raw_env",
           "single"]
