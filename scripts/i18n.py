"""The message catalogs of darkroad: extract, update and compile them with Babel.

Usage (from the repository)::

    .venv/bin/python scripts/i18n.py update    # extract every domain's messages, merge them into its .po files
    .venv/bin/python scripts/i18n.py compile   # .po -> .mo (committed, so `pip install` ships them)
    .venv/bin/python scripts/i18n.py check     # what tests/test_i18n.py checks: complete, not stale, compiled

``update`` then ``compile`` after changing a player-facing message; translate the new entries of
``*/locale/hu/LC_MESSAGES/*.po`` (``msgstr ""`` and ``#, fuzzy`` ones) in between. The domains (one
for the core and the service, one per plugin package, one for the web client of /play) and their
sources are :data:`DOMAINS`; what each source's files are read with is ``babel.cfg``. The web
client's catalogs compile to one JSON file its bundle imports (``web/src/messages.json``:
:func:`web_json`), not to ``.mo``. A fan plugin keeps its own catalog the same way with
``pybabel`` (docs/plugins.md, "Translating a plugin").
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALES = ("hu",)
"""The languages translated from English (the source language needs no catalog)."""
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2), "N_": None, "Text": None,
            "say": None, "say_n": (1, 2), "N_n": (1, 2),
            "ServiceError": (2,), "Problem": (2,), "Refusal": (2,),
            **dict.fromkeys(("DarkroadError", "BadConfig", "UnknownComponent", "BadAction", "IllegalAction",
                             "NotYourDecision", "GameFinished", "CannotUndo", "MissingPlugin"), None)}
"""The marking functions of :mod:`darkroad.core.i18n` (and a plugin's ``Domain`` methods, a
:class:`~darkroad.core.i18n.Text`), the service's errors, whose ``detail`` (their second
argument) a problem translates, and the rules core's errors, whose reason (their first) it
translates. ``PluginError`` is not among them: its reason is a diagnostic for the plugin's
author and the operator (a Python exception's text), English in every language."""


@dataclass(frozen=True)
class Domain:
    """A gettext domain: its name, the folders its messages are extracted from (``babel.cfg``
    says how each file is read), its catalogs' folder, and the package whose plugins' components
    (names, texts: data made in Python) and bots it translates."""

    name: str
    sources: tuple[str, ...]
    locale_dir: str
    exclude: tuple[str, ...] = ()
    package: str = ""
    keywords: dict[str, Any] | None = None
    """The marking functions of this domain's sources (:data:`KEYWORDS` by default)."""
    compiled_json: str = ""
    """Where the catalogs compile to one JSON file (the web client's), instead of ``.mo``."""

    def po(self, locale: str) -> Path:
        return ROOT / self.locale_dir / locale / "LC_MESSAGES" / f"{self.name}.po"

    def mo(self, locale: str) -> Path:
        return self.po(locale).with_suffix(".mo")


DOMAINS = (
    Domain("darkroad", ("core", "api"), "core/locale"),
    Domain("darkroad_basegame", ("plugins",), "plugins/locale", exclude=("plugins/examples",),
           package="darkroad.plugins"),
    Domain("darkroad_fan_pack", ("plugins/examples/fan_pack/src",), "plugins/examples/fan_pack/src/darkroad_fan_pack/locale",
           package="darkroad_fan_pack"),
    # The web client's marking functions (web/src/i18n.ts): t(message, params) and
    # tn(singular, plural, n, params), with the same %(name)s placeholders as Python's.
    Domain("darkroad_web", ("web/src",), "web/locale", keywords={"t": None, "tn": (1, 2)},
           compiled_json="web/src/messages.json"),
)


def template(domain: Domain) -> Catalog:
    """Every message the domain's sources mark now (a ``.pot`` in memory)."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f)  # type: ignore[no-untyped-call]
    catalog = Catalog(domain=domain.name, project="darkroad", charset="utf-8")
    for source in domain.sources:
        for filename, lineno, message, comments, context in extract_from_dir(
            ROOT / source, method_map, options_map, keywords=domain.keywords or KEYWORDS, comment_tags=("TRANSLATORS:",),
            strip_comment_tags=True,
        ):
            path = f"{source}/{filename}"
            if any(path.startswith(prefix + "/") for prefix in domain.exclude):
                continue
            catalog.add(message, None, [(path, lineno)], auto_comments=comments, context=context)
    if domain.package:
        for text, where in plugin_texts(domain.package):
            catalog.add(text, None, [(where, 0)])
    return catalog


def plugin_texts(package: str) -> Iterator[tuple[str, str]]:
    """The names and texts of the components, bots and seat kinds that the plugins of ``package``
    contribute, as the installed engine's catalogue has them (data made in Python, marked or not),
    with the plugin they come from."""
    from darkroad.core import Engine, i18n

    engine = Engine.load()
    plugins = engine.plugins.plugins

    def ours(plugin: str) -> bool:
        loaded = plugins.get(plugin)
        return loaded is not None and (loaded.module == package or loaded.module.startswith(package + "."))

    for component in engine.catalog():
        if ours(component["plugin"]):
            for text in i18n.component_texts(component):
                yield text, f"plugin {component['plugin']}"
    for bot in engine.bots.values():
        if ours(engine.bot_plugins[bot.id]):
            for text in (bot.name, bot.text):
                if text:
                    yield text, f"plugin {engine.bot_plugins[bot.id]}"
    for kind in engine.seat_kinds.values():
        if ours(engine.seat_kind_plugins[kind.id]):
            for text in (kind.name, kind.text):
                if text:
                    yield text, f"plugin {engine.seat_kind_plugins[kind.id]}"


def read(path: Path, locale: str, domain: str) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=locale, domain=domain)


def write(path: Path, catalog: Catalog) -> None:
    catalog.fuzzy = False  # the header is kept by hand, not a guess to review
    catalog.project, catalog.version = "darkroad", ""
    catalog.copyright_holder = "the darkroad authors"
    catalog.msgid_bugs_address = ""
    catalog.last_translator = catalog.language_team = "the darkroad authors"
    catalog.header_comment = (f"# {catalog.locale_identifier or ''} translations of darkroad's {catalog.domain} domain.\n"
                              "# Kept with scripts/i18n.py (Babel); the words follow docs/hu-glossary.md.\n#")
    out = io.BytesIO()
    # No line numbers (a catalog that changes whenever a line moves would conflict at every merge).
    write_po(out, catalog, width=100, sort_output=True, include_lineno=False, ignore_obsolete=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(out.getvalue())


def update() -> None:
    """Merge each domain's messages into its catalogs (new ones untranslated, changed ones
    fuzzy, gone ones dropped)."""
    for domain in DOMAINS:
        pot = template(domain)
        for locale in LOCALES:
            path = domain.po(locale)
            if path.exists():
                catalog = read(path, locale, domain.name)
            else:
                catalog = Catalog(locale=locale, domain=domain.name, project="darkroad", charset="utf-8",
                                  creation_date=datetime.now(UTC))
            catalog.update(pot, update_header_comment=False, update_creation_date=False)
            write(path, catalog)
            print(f"{path.relative_to(ROOT)}: {len(catalog)} messages, "
                  f"{sum(1 for m in catalog if m.id and not translated(m))} to translate")


def compiled(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def web_json(domain: Domain) -> bytes:
    """The catalogs of ``domain`` as the web client reads them: ``{locale: {message: translation}}``,
    a plural message under its singular with the list of its forms; only what gettext would use
    (not empty, not fuzzy: the client shows the English message otherwise). Sorted, one line per
    message: a change of one translation is a change of one line."""
    out: dict[str, dict[str, str | list[str]]] = {}
    for locale in LOCALES:
        catalog = read(domain.po(locale), locale, domain.name)
        messages: dict[str, str | list[str]] = {}
        for message in catalog:
            if not message.id or not translated(message):
                continue
            string = message.string or ""
            if isinstance(message.id, tuple | list):
                messages[message.id[0]] = [string] if isinstance(string, str) else list(string)
            else:
                messages[message.id] = string if isinstance(string, str) else string[0]
        out[locale] = dict(sorted(messages.items()))
    return (json.dumps(out, ensure_ascii=False, indent=0, sort_keys=True) + "\n").encode("utf-8")


def compile_all() -> None:
    """``.po`` -> ``.mo`` for every domain and locale (the web client's: one JSON file)."""
    for domain in DOMAINS:
        if domain.compiled_json:
            (ROOT / domain.compiled_json).write_bytes(web_json(domain))
            print(domain.compiled_json)
            continue
        for locale in LOCALES:
            catalog = read(domain.po(locale), locale, domain.name)
            domain.mo(locale).write_bytes(compiled(catalog))
            print(f"{domain.mo(locale).relative_to(ROOT)}")


def translated(message: Message) -> bool:
    """Whether ``message`` has a translation gettext will use (not empty, not fuzzy)."""
    strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
    return not message.fuzzy and all(strings)


def problems() -> Iterator[str]:
    """Every untranslated, missing, stale or uncompiled message of every domain and locale."""
    for domain in DOMAINS:
        pot = template(domain)
        wanted = {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in pot if m.id}
        for locale in LOCALES:
            path = domain.po(locale)
            if not path.exists():
                yield f"{domain.name}/{locale}: no catalog ({path.relative_to(ROOT)}): run scripts/i18n.py update"
                continue
            catalog = read(path, locale, domain.name)
            have = {(m.context, m.id if isinstance(m.id, str) else m.id[0]): m for m in catalog if m.id}
            for key in sorted(wanted - have.keys(), key=str):
                yield f"{domain.name}/{locale}: missing {key[1]!r}: run scripts/i18n.py update and translate it"
            for key in sorted(have.keys() - wanted, key=str):
                yield f"{domain.name}/{locale}: stale {key[1]!r} (no longer in the source): run scripts/i18n.py update"
            for key in sorted(wanted & have.keys(), key=str):
                if not translated(have[key]):
                    yield f"{domain.name}/{locale}: untranslated {key[1]!r}"
            for message, errors in catalog.check():
                yield f"{domain.name}/{locale}: {message.id!r}: {'; '.join(map(str, errors))}"
            if domain.compiled_json:
                continue
            mo = domain.mo(locale)
            if not mo.exists() or mo.read_bytes() != compiled(catalog):
                yield f"{domain.name}/{locale}: {mo.relative_to(ROOT)} is not the compiled catalog: run scripts/i18n.py compile"
        compiled_json = ROOT / domain.compiled_json if domain.compiled_json else None
        if compiled_json is not None and all(domain.po(locale).exists() for locale in LOCALES) and (
                not compiled_json.exists() or compiled_json.read_bytes() != web_json(domain)):
            yield f"{domain.name}: {domain.compiled_json} is not the compiled catalogs: run scripts/i18n.py compile"


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else ""
    if command == "update":
        update()
    elif command == "compile":
        compile_all()
    elif command == "check":
        found = list(problems())
        print("\n".join(found) or "every catalog complete and compiled")
        return 1 if found else 0
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
