"""Translations: gettext catalogs per domain, the language of the current call, English fallback.

Every text a player reads is written in English in the source, marked where it is written, and
translated from a gettext catalog (``.po`` kept by Babel, compiled to ``.mo``: ``scripts/i18n``)::

    from darkroad.core.i18n import _, ngettext
    _("sell %(good)s for %(coins)d coins", good=..., coins=2)   # named placeholders, whole sentences
    ngettext("%(num)d coin", "%(num)d coins", n)                 # plural forms of the catalog's language

The language is a property of the *call*, not of the engine or the game: a context variable
(:func:`current_locale`), set by :func:`use_locale` around a piece of work (the API sets it per
request from ``Accept-Language``: :func:`negotiate`), so one engine answers every caller in their own
language, and a game's state, ids and options never depend on it. Bots, stored games and the rules
never read it. English is the source language and the default; a message the catalog lacks, leaves
untranslated or marks fuzzy is shown in English (gettext's fallback), never as an id.

**Domains.** The rules core (the rulebook included) translates in the ``darkroad`` domain; every
plugin package has a domain of its own, its catalog shipped inside it. A plugin package declares it
once, in its ``__init__.py`` (the base game: ``darkroad.plugins``; a fan pack the same way), and its
modules translate in it::

    # darkroad_fan_pack/__init__.py
    from importlib.resources import files
    from darkroad.core import i18n
    MESSAGES = i18n.Domain("darkroad_fan_pack", files(__name__) / "locale", package=__name__)

    # darkroad_fan_pack/snow_owl.py
    from darkroad.core import i18n
    _ = i18n.messages(__name__).gettext

The engine translates a component's name and text, and a content pack's card names, in the domain
of the package of the plugin that contributed them (:func:`domain_of`). Data are marked for
extraction with :func:`N_` in Python, and content packs' JSON files are read by this module's
extractor (:func:`extract_content_json`, named in ``babel.cfg``).
"""

from __future__ import annotations

import gettext as _gettext
import threading
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar, Token
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import IO, Any

from .content import PACK_KEYS

DEFAULT_LOCALE = "en"
"""The source language: every message is written in English, and a caller who asks for no
language we have gets English."""
LOCALES: tuple[str, ...] = ("en", "hu")
"""The languages darkroad speaks: English, and Hungarian in the words of the published edition
(``docs/hu-glossary.md``)."""

_LOCALE: ContextVar[str] = ContextVar("darkroad_locale", default=DEFAULT_LOCALE)


def current_locale() -> str:
    """The language of the current call (one of :data:`LOCALES`)."""
    return _LOCALE.get()


locale_now = _LOCALE.get
""":func:`current_locale` as the context variable's own ``get``: no Python call, for the words
made at every decision (each label asks it)."""


def set_locale(locale: str) -> Token[str]:
    """Make ``locale`` the language of the current context (until :func:`reset_locale` with the
    token). An unknown language is refused: :func:`negotiate` first."""
    if locale not in LOCALES:
        raise ValueError(f"unknown locale {locale!r}: darkroad speaks {', '.join(LOCALES)}")
    return _LOCALE.set(locale)


WORDLESS = ""
"""The language of a call that reads no words (:func:`set_wordless`)."""


def set_wordless() -> Token[str]:
    """Make the current context's words empty, until :func:`reset_locale` with the token: the
    core's ``say``, ``say_n`` and names answer ``""`` without wording anything (a plugin's
    catalog answers its message). For a listing of answers whose words nobody reads
    (:meth:`~darkroad.core.engine.Engine.legal_actions` with ``words=False``)."""
    return _LOCALE.set(WORDLESS)


def reset_locale(token: Token[str]) -> None:
    """Restore the language :func:`set_locale` replaced."""
    _LOCALE.reset(token)


@contextmanager
def use_locale(locale: str) -> Iterator[None]:
    """Translate into ``locale`` within the block (Flask-Babel's ``force_locale``)."""
    token = set_locale(locale)
    try:
        yield
    finally:
        _LOCALE.reset(token)


def negotiate(accept_language: str | None, available: Collection[str] = LOCALES) -> str:
    """The language to answer a request in: the first of ``available`` that the client's
    ``Accept-Language`` (RFC 9110, section 12.5.4) prefers, by weight then by order, a range matching
    a language or one of its subtags (RFC 4647 lookup: ``hu-HU`` is answered in ``hu``), English
    when nothing matches, for ``*``, and for a missing or malformed header.

    A range of weight 0 is "not acceptable"; darkroad still answers English when nothing else fits
    (section 12.1 lets a server disregard the header rather than answer 406)."""
    if not accept_language:
        return DEFAULT_LOCALE
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate(accept_language.split(",")):
        tag, _, parameters = part.partition(";")
        tag = tag.strip().lower()
        if not tag:
            continue
        weight = 1.0
        name, _, value = parameters.strip().partition("=")
        if name.strip().lower() == "q":
            try:
                weight = float(value)
            except ValueError:
                continue  # a malformed weight: the range is ignored
            if not 0 <= weight <= 1:
                continue
        if weight > 0:
            ranked.append((-weight, position, tag))
    # Imported here: the rules core itself needs no Babel (only the service's negotiation does).
    from babel.core import negotiate_locale

    wanted = {locale.lower(): locale for locale in available}
    for _, _, tag in sorted(ranked):
        if tag == "*":
            return DEFAULT_LOCALE
        # Babel's negotiate_locale tries the range, then its primary subtag; our tags are bare languages.
        found = negotiate_locale([tag], list(wanted), sep="-", aliases={})
        if found is not None:
            return wanted[found.lower()]
    return DEFAULT_LOCALE


def N_(message: str) -> str:
    """Mark ``message`` for extraction without translating it now (gettext's ``gettext_noop``):
    for texts kept as data and translated where they are shown."""
    return message


class Domain:
    """A gettext domain: the messages of one package, translated from its catalogs.

    ``directory`` holds ``<locale>/LC_MESSAGES/<name>.mo`` (gettext's layout, Babel's default).
    ``package``: the dotted package whose plugins translate in this domain (:func:`domain_of`).
    Creating a domain registers it; a second domain of the same name replaces the first (a
    reloaded module)."""

    def __init__(self, name: str, directory: Traversable | None, package: str = "") -> None:
        self.name = name
        self.directory = directory
        self.package = package
        self._translations: dict[str, _gettext.NullTranslations] = {}
        self._lock = threading.Lock()
        if directory is None:
            return  # an untranslated stand-in (:func:`messages`), not registered
        _DOMAINS[name] = self
        if package:
            _PACKAGES[package] = self

    def __repr__(self) -> str:
        return f"Domain({self.name!r}, package={self.package!r})"

    def translations(self, locale: str) -> _gettext.NullTranslations:
        """The compiled catalog of ``locale`` (read once per process; English and a missing
        catalog translate nothing)."""
        found = self._translations.get(locale)
        if found is None:
            with self._lock:
                found = self._translations.get(locale)
                if found is None:
                    found = self._translations[locale] = self._read(locale)
        return found

    def _read(self, locale: str) -> _gettext.NullTranslations:
        if locale == DEFAULT_LOCALE or self.directory is None:
            return _gettext.NullTranslations()
        mo = self.directory / locale / "LC_MESSAGES" / f"{self.name}.mo"
        if not mo.is_file():
            return _gettext.NullTranslations()
        with mo.open("rb") as f:
            return _gettext.GNUTranslations(f)

    def gettext(self, message: str, /, **params: Any) -> str:
        """``message`` in the current language, its ``%(name)s`` placeholders filled from
        ``params`` (a message without params is returned as translated, ``%`` and all)."""
        return _fill(self.translations(_LOCALE.get()).gettext(message), message, params)

    def ngettext(self, singular: str, plural: str, n: int, /, **params: Any) -> str:
        """The plural form of the current language for ``n``; ``%(num)d`` is ``n``."""
        text = self.translations(_LOCALE.get()).ngettext(singular, plural, n)
        return _fill(text, singular if n == 1 else plural, {"num": n, **params})

    def pgettext(self, context: str, message: str, /, **params: Any) -> str:
        """``message`` in the sense ``context`` names (the same English word may need two
        translations: a good's name and a verb)."""
        return _fill(self.translations(_LOCALE.get()).pgettext(context, message), message, params)

    def translate(self, message: str, locale: str) -> str:
        """``message`` (without placeholders) in ``locale``, whatever the current language."""
        return self.translations(locale).gettext(message)


def _fill(text: str, source: str, params: Mapping[str, Any]) -> str:
    if not params:
        return text
    try:
        return text % params
    except (KeyError, ValueError, TypeError):
        # A translation whose placeholders do not match its message (the catalog test forbids it):
        # the English sentence rather than an error in front of a player.
        return source % params


class Text(str):
    """A message and its placeholders' values, translated where it is shown: the string itself
    is the English text (an error's reason in a log, or wherever a ``str`` was returned before),
    :meth:`translated` the text in the caller's language (a problem's detail), and a ``Text``
    placeholder's value is translated with the message it fills."""

    message: str
    params: dict[str, Any]

    def __new__(cls, message: str, /, **params: Any) -> Text:
        text = super().__new__(cls, fill(message, params))
        text.message, text.params = message, params
        return text

    def __repr__(self) -> str:
        return f"Text({self.message!r}, {self.params!r})"

    def translated(self) -> str:
        """The text in the language of the call (:func:`translated`)."""
        return translated(self.message, **self.params)


def _value(value: Any, translate: bool) -> Any:
    """A placeholder's value: a :class:`Text` in English or translated, a list of them joined by
    commas, anything else as it is."""
    if isinstance(value, Text):
        return value.translated() if translate else str.__str__(value)
    if isinstance(value, list):
        return ", ".join(str(_value(item, translate)) for item in value)
    return value


def fill(message: str, params: Mapping[str, Any]) -> str:
    """``message`` (English) with its placeholders filled from ``params`` (a :class:`Text` value
    in English too; a list of values joined by commas), untranslated."""
    return message % {k: _value(v, False) for k, v in params.items()} if params else message


def translated(message: str, /, **params: Any) -> str:
    """``message`` in the current language from the first catalog that translates it: the
    core's, then the plugins' domains (an error class of the core raised by a plugin with a
    message of its own, a seat kind's name); English when none does. A :class:`Text` value of a
    placeholder is translated too (a list of values is joined by commas)."""
    locale = _LOCALE.get()
    values = {k: _value(v, True) for k, v in params.items()}
    if locale != DEFAULT_LOCALE:
        for domain in (CORE, *_DOMAINS.values()):
            text = domain.translations(locale).gettext(message)
            if text != message:
                return _fill(text, message, values)
    return _fill(message, message, values)


_DOMAINS: dict[str, Domain] = {}
_PACKAGES: dict[str, Domain] = {}


def domains() -> Mapping[str, Domain]:
    """Every registered domain, by name."""
    return dict(_DOMAINS)


def domain_of(module: str) -> Domain | None:
    """The domain of the package ``module`` belongs to (the longest registered package that
    contains it), or ``None``."""
    while module:
        found = _PACKAGES.get(module)
        if found is not None:
            return found
        module = module.rpartition(".")[0]
    return None


def messages(module: str) -> Domain:
    """The domain a module's messages are translated in: its package's (:func:`domain_of`), or,
    for a package without a catalog, one that translates nothing. A plugin module writes
    ``_ = i18n.messages(__name__).gettext``: copied into a fan's package, it uses the fan's catalog.
    """
    return domain_of(module) or Domain(f"untranslated:{module}", None)


CORE = Domain("darkroad", files(__package__) / "locale", package=__package__ or "darkroad.core")
"""The rules core's domain (the rulebook included)."""
_ = CORE.gettext
gettext = CORE.gettext
ngettext = CORE.ngettext
pgettext = CORE.pgettext


# -- extraction (Babel) ------------------------------------------------------------------

ContentKeys = Mapping[str, tuple[str, ...]]
CONTENT_TEXTS: ContentKeys = {
    "goods": ("name",),
    "towns": ("name",),
    "heroes": ("name",),
    "events": ("name", "flavor"),
}
"""The fields of a content pack's lists that players read (:mod:`darkroad.core.content`)."""


def content_texts(pack: Mapping[str, Any]) -> Iterator[str]:
    """The texts of a content pack that are translated: the names of its goods, towns, heroes and
    event cards, the events' flavour text, and the names of the cards of the keys the core does
    not read (a seat kind's cards: the Private Concern's action cards), which the catalogue shows
    (``extra_names``)."""
    keys = {**CONTENT_TEXTS, **{key: ("name",) for key in sorted(pack.keys() - PACK_KEYS)}}
    for key, fields in keys.items():
        items = pack.get(key)
        for item in items if isinstance(items, list) else ():
            for field in fields:
                text = item.get(field) if isinstance(item, Mapping) else None
                if isinstance(text, str) and text:
                    yield text


def component_texts(component: Mapping[str, Any]) -> Iterator[str]:
    """The texts of a catalogue entry of a component (``Engine.catalog()``) that players read: its
    name and text, its abilities' texts (companions) and its criterion (deeds)."""
    for text in (component.get("name"), component.get("text")):
        if isinstance(text, str) and text:
            yield text
    data = component.get("data") or {}
    for ability in data.get("abilities") or ():
        if isinstance(ability, Mapping) and isinstance(ability.get("text"), str) and ability["text"]:
            yield ability["text"]
    if isinstance(data.get("criterion"), str) and data["criterion"]:
        yield data["criterion"]


def localized_component(component: Mapping[str, Any], domain: Domain) -> dict[str, Any]:
    """A catalogue entry of a component with the texts :func:`component_texts` names in the
    current language, from ``domain`` (its plugin's); ids and every other field as they are."""
    out = dict(component)
    for key in ("name", "text"):
        if isinstance(out.get(key), str) and out[key]:
            out[key] = domain.gettext(out[key])
    data = dict(out.get("data") or {})
    if data.get("abilities"):
        data["abilities"] = [{**a, "text": domain.gettext(a["text"])} if isinstance(a, Mapping) and a.get("text") else a
                             for a in data["abilities"]]
    if isinstance(data.get("criterion"), str) and data["criterion"]:
        data["criterion"] = domain.gettext(data["criterion"])
    out["data"] = data
    return out


def extract_content_json(
    fileobj: IO[bytes], keywords: object, comment_tags: object, options: Mapping[str, Any]
) -> Iterator[tuple[int, str | None, str, list[str]]]:
    """Babel extraction method for a content pack's JSON file (``babel.cfg``:
    ``[darkroad.core.i18n.extract_content_json: **/data/*.json]``): its players' texts."""
    import json

    pack = json.loads(fileobj.read().decode("utf-8"))
    if isinstance(pack, Mapping):
        for text in content_texts(pack):
            yield 0, None, text, []

