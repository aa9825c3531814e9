"""The engine's words: every label, prompt and text a player reads, from one place.

Messages are whole English sentences with named placeholders (``%(good)s``), translated from the
core's gettext catalog (:mod:`darkroad.core.i18n`) in the language of the call. They go through
:func:`say` and :func:`say_n` rather than ``_``: the catalogs do not translate them yet, and
Babel extracts every ``_`` call (a marked message the Hungarian catalog lacks fails its
completeness test). Adding ``say`` and ``say_n`` to the extraction keywords
(``scripts/i18n.py``'s ``KEYWORDS``: ``"say": None, "say_n": (1, 2)``) makes them extracted like
``_`` the day they are translated; until then a message is English, gettext's own fallback.
"""

from __future__ import annotations

from typing import Any

from . import i18n


def say(message: str, /, **params: Any) -> str:
    """``message`` in the caller's language, its ``%(name)s`` placeholders filled from
    ``params`` (the core's catalog; English until translated)."""
    return i18n.gettext(message, **params)


def say_n(singular: str, plural: str, n: int, /, **params: Any) -> str:
    """The plural form of the caller's language for ``n`` (``%(num)d`` is ``n``)."""
    return i18n.ngettext(singular, plural, n, **params)
