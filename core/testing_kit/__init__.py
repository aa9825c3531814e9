"""``darkroad.testing``: the testing kit for plugin authors.

Build a game with chosen components, put it at a given decision, apply actions as a
client would and record every hook call (in the manner of pytest's ``pytester``).
Implemented in :mod:`darkroad.core.testing`; this is its public import path.
"""

from darkroad.core.testing import HookCall, HookRecorder, Table

__all__ = ["HookCall", "HookRecorder", "Table"]
