"""Translations (darkroad.core.i18n): the catalogs complete and compiled, the language of a call,
Accept-Language negotiation, English fallback, named placeholders and plural forms."""

from __future__ import annotations

import asyncio
import importlib.util
import io
import subprocess
import sys
import threading
import zipfile
from pathlib import Path
from types import ModuleType

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from pip_builds import builds_offline

import darkroad.plugins  # noqa: F401  (declares the base game's domain)
from darkroad.core import Engine, i18n

ROOT = Path(__file__).resolve().parent.parent


def tooling() -> ModuleType:
    """scripts/i18n.py, the catalogs' tooling, as a module."""
    name = "darkroad_i18n_tooling"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / "i18n.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # (dataclasses look their module up)
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_every_catalog_is_complete_current_and_compiled() -> None:
    """Every message the sources of core, the rulebook, the service, the base game's plugins and the
    example fan pack mark (and the card data's names) is translated in every language, no catalog
    keeps a message the sources no longer have, placeholders match, and each committed .mo is its
    .po compiled (what `pip install` ships)."""
    found = list(tooling().problems())
    assert not found, "\n".join(found[:60]) + f"\n({len(found)} in all: scripts/i18n.py update, translate, compile)"


def test_the_check_finds_untranslated_and_stale_messages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The completeness check itself: a marked message missing from the catalog, one left
    untranslated, one fuzzy, one the source no longer has, and a stale .mo are each reported."""
    tools = tooling()
    source = tmp_path / "pkg"
    source.mkdir()
    (source / "m.py").write_text(
        "from darkroad.core.i18n import _, N_\n"
        "_('kept')\n_('new one')\n_('left empty')\nN_('guessed')\n", encoding="utf-8")
    (tmp_path / "babel.cfg").write_text("[python: **.py]\n", encoding="utf-8")
    domain = tools.Domain("probe", ("pkg",), "locale")
    monkeypatch.setattr(tools, "ROOT", tmp_path)
    monkeypatch.setattr(tools, "DOMAINS", (domain,))
    catalog = Catalog(locale="hu", domain="probe")
    catalog.add("kept", "megvan")
    catalog.add("left empty", "")
    catalog.add("guessed", "talán", flags=["fuzzy"])
    catalog.add("gone", "elment")
    tools.write(domain.po("hu"), catalog)
    found = "\n".join(tools.problems())
    assert "missing 'new one'" in found
    assert "untranslated 'left empty'" in found
    assert "untranslated 'guessed'" in found
    assert "stale 'gone'" in found
    assert "not the compiled catalog" in found
    assert "'kept'" not in found


@pytest.mark.parametrize(("header", "locale"), [
    (None, "en"),
    ("", "en"),
    ("hu", "hu"),
    ("HU", "hu"),
    ("hu-HU", "hu"),  # RFC 4647 lookup: the range's primary subtag
    ("hu-HU,hu;q=0.9,en-US;q=0.8,en;q=0.7", "hu"),  # what a Hungarian Chromium sends
    ("en-US,en;q=0.9,hu;q=0.8", "en"),
    ("de-DE, hu;q=0.5", "hu"),  # the first language we have
    ("en;q=0.1, hu;q=0.2", "hu"),  # by weight, not by order
    ("hu;q=0.5, en;q=0.5", "hu"),  # equal weights: by order
    ("*", "en"),
    ("de, *;q=0.5", "en"),
    ("hu;q=0", "en"),  # not acceptable: English, never a 406
    ("hu;q=0, en", "en"),
    ("hu;q=abc, en", "en"),  # a malformed weight ignores its range
    ("hu;q=2", "en"),
    (",,; ,hu", "hu"),
    ("x" * 300, "en"),
])
def test_accept_language_negotiation(header: str | None, locale: str) -> None:
    assert i18n.negotiate(header) == locale


def test_a_missing_or_unfinished_translation_falls_back_to_english(tmp_path: Path) -> None:
    """gettext's fallback: a message the catalog lacks, leaves empty or marks fuzzy is English, its
    placeholders filled; a translation whose placeholders do not match its message is the English
    sentence rather than an error."""
    domain = _domain(tmp_path, [
        ("the Great Bazaar", "a nagy bazár"),
        ("empty", ""),
        ("sell %(good)s for %(coins)d coins", "%(good)s eladása %(coins)d pénzért"),
        ("broken %(good)s", "elrontott %(goods)s"),
    ], fuzzy=[("fuzzy", "kétes")])
    with i18n.use_locale("hu"):
        assert domain.gettext("the Great Bazaar") == "a nagy bazár"
        assert domain.gettext("not in the catalog") == "not in the catalog"
        assert domain.gettext("empty") == "empty"
        assert domain.gettext("fuzzy") == "fuzzy"
        assert domain.gettext("sell %(good)s for %(coins)d coins", good="könyv", coins=2) == "könyv eladása 2 pénzért"
        assert domain.gettext("broken %(good)s", good="x") == "broken x"
    assert domain.gettext("the Great Bazaar") == "the Great Bazaar"  # English outside the block


def test_plural_forms_follow_the_catalog(tmp_path: Path) -> None:
    """ngettext picks the catalog language's form; ``%(num)d`` is the count."""
    domain = _domain(tmp_path, [(("%(num)d coin", "%(num)d coins"), ("%(num)d pénz", "%(num)d pénz"))])
    assert [domain.ngettext("%(num)d coin", "%(num)d coins", n) for n in (1, 2)] == ["1 coin", "2 coins"]
    with i18n.use_locale("hu"):
        assert [domain.ngettext("%(num)d coin", "%(num)d coins", n) for n in (1, 2)] == ["1 pénz", "2 pénz"]


def test_the_language_belongs_to_the_call() -> None:
    """A context variable: concurrent tasks and threads each keep their own language."""
    domain = i18n.messages("darkroad.plugins.probe")
    seen: dict[str, str] = {}

    async def speak(locale: str) -> None:
        with i18n.use_locale(locale):
            await asyncio.sleep(0.01)
            seen[locale] = domain.gettext("Armor")

    async def both() -> None:
        await asyncio.gather(speak("hu"), speak("en"))

    asyncio.run(both())
    assert seen == {"hu": "Páncél", "en": "Armor"}

    def in_thread() -> None:
        seen["thread"] = domain.gettext("Armor")

    with i18n.use_locale("hu"):
        worker = threading.Thread(target=in_thread)
        worker.start()
        worker.join()
    assert seen["thread"] == "Armor"  # a new thread starts in English
    assert i18n.current_locale() == "en"
    with pytest.raises(ValueError, match="unknown locale"):
        i18n.set_locale("de")


def test_domains_by_package() -> None:
    """A plugin module translates in its package's domain; a package without one translates nothing."""
    assert i18n.messages("darkroad.plugins.buildings.blazing_quartz_mine").name == "darkroad_basegame"
    assert i18n.messages("darkroad.core.rulebook.plan") is i18n.CORE
    stray = i18n.messages("somebody_elses_pack.module")
    with i18n.use_locale("hu"):
        assert stray.gettext("Armor") == "Armor"


def test_every_installed_steps_prompt_is_translated(engine: Engine) -> None:
    """The prompt of every decision the installed plugins register (the rulebook's, the base
    game's, the fan pack's) reads in Hungarian: a prompt written without ``N_`` is not extracted,
    so it stayed English in a Hungarian game (the overflow discards' did, in a browser test's
    random game that reached a goods overflow)."""
    steps = engine.registry.steps.values()
    with i18n.use_locale("hu"):  # as Step.describe translates a prompt (some steps say more around it)
        untranslated = sorted(step.kind for step in steps if step.prompt
                              and i18n.messages(type(step).__module__).gettext(step.prompt) == step.prompt)
    assert untranslated == []


@pytest.mark.slow
def test_a_built_wheel_ships_the_compiled_catalogs(tmp_path: Path) -> None:
    """What `pip install` installs: the .mo files are package data of darkroad's wheel."""
    build = ["--no-build-isolation"] if builds_offline(setuptools=(77, 0)) else []  # pyproject's build-system
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *build,
                    "-w", str(tmp_path), str(ROOT)], check=True)
    (wheel,) = tmp_path.glob("darkroad-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for domain in tooling().DOMAINS:
        if domain.name == "darkroad_fan_pack":
            continue  # a distribution of its own
        if domain.compiled_json:
            continue  # the web client's: compiled into its bundle (api/http/play_assets/play.js)
        for locale in ("hu",):
            mo = f"{domain.mo(locale).relative_to(ROOT)}"
            package_path = mo.replace("core/", "darkroad/core/", 1).replace("plugins/", "darkroad/plugins/", 1)
            assert package_path in names, f"{package_path} not in the wheel"


def _domain(tmp_path: Path, entries: list[tuple[object, object]],
            fuzzy: list[tuple[str, str]] = ()) -> i18n.Domain:  # type: ignore[assignment]
    catalog = Catalog(locale="hu", domain="probe")
    for source, target in entries:
        catalog.add(source, target)  # type: ignore[arg-type]
    for source, target in fuzzy:
        catalog.add(source, target, flags=["fuzzy"])
    folder = tmp_path / "hu" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    out = io.BytesIO()
    write_mo(out, catalog)
    (folder / "probe.mo").write_bytes(out.getvalue())
    return i18n.Domain("probe", tmp_path)  # type: ignore[arg-type]


def test_no_marked_message_is_an_f_string(capsys: pytest.CaptureFixture[str]) -> None:
    """A message built with an f-string cannot be translated (its text differs at every call):
    Babel skips every one it meets in a marking call (``_``, an error class, ``ServiceError``,
    ``Problem``, ``Text``...) and says so; the sources have none."""
    for domain in tooling().DOMAINS:
        tooling().template(domain)
    skipped = [line for line in capsys.readouterr().err.splitlines() if "Skipping f-string" in line]
    assert not skipped, "\n".join(skipped)


def test_an_error_is_english_in_its_reason_and_translated_where_it_is_shown() -> None:
    """The rules' errors carry their message and its values apart: ``reason`` is the English
    sentence (logs, the CLI), ``translated()`` the caller's language, a nested
    :class:`~darkroad.core.i18n.Text` translated with it; a message no catalog has is English."""
    from darkroad.core import errors

    error = errors.IllegalAction("seat %(seat)d has no decision to make now", seat=2)
    assert error.reason == str(error) == "seat 2 has no decision to make now"
    with i18n.use_locale("hu"):
        assert error.translated() == "a(z) 2. helynek most nincs döntenivalója"
        assert error.reason == "seat 2 has no decision to make now"
        nested = i18n.Text("Your last action is a checkpoint and cannot be undone: %(why)s.",
                           why=i18n.Text("an automated seat acted"))
        assert nested == "Your last action is a checkpoint and cannot be undone: an automated seat acted."
        assert nested.translated() == "Az utolsó lépésed visszavonhatatlan: egy automatikus hely lépett."
        assert errors.CannotUndo(nested).translated() == nested.translated()
        assert errors.BadConfig("no such %(thing)s", thing="x").translated() == "no such x"
        # A plugin's message, in its own package's catalog (the core's error class).
        assert errors.BadConfig("this installation has no Private Concern action cards").translated() == \
            "ebben a telepítésben nincsenek meg a Magányos vállalkozó akciókártyái"
    assert error.translated() == error.reason


def test_what_the_engine_remembers_of_a_position_is_never_shown_in_another_language() -> None:
    """The engine keeps the options of the decision a game waits for (worked out when an action
    settles the game there) and the actions it gave, to answer the next questions at once;
    their labels, and the decision's prompt, are in the language of the call that asks,
    whichever language made them (the example fan pack's Lamplighters' Guild: a plugin's
    decision, labels from its own catalog, reached by random play)."""
    import random

    from darkroad.core import Engine, GameConfig

    pytest.importorskip("darkroad_fan_pack")
    engine = Engine.load()
    english = {"light:1": "spend 1 lantern: gain 2 prestige", "light:2": "spend 2 lanterns: gain 4 prestige",
               "done": "keep your lanterns"}
    hungarian = {"light:1": "elköltesz 1 lámpást: 2 presztízst kapsz",
                 "light:2": "elköltesz 2 lámpást: 4 presztízst kapsz", "done": "megtartod a lámpásaidat"}
    seen = 0
    for seed in range(40):
        game, _ = engine.create(GameConfig(players=2, seed=seed, buildings=[
            "lamplighters_guild", "frost_orchard", "blazing_quartz_mine", "oracle_of_lumi"]))
        rnd = random.Random(seed)
        while not game.finished and seen < 6:
            made = ("hu", "en")[rnd.randrange(2)]  # the language of the action that settles the game
            with i18n.use_locale(made):
                seat = rnd.choice(engine.awaiting(game))
                engine.apply(game, rnd.choice(engine.legal_actions(game, seat)))
            if not game.stack or game.stack[-1].kind != "lamplighters_guild_light":
                continue
            seen += 1
            seat = game.stack[-1].seat
            for locale in ("en", "hu", "hu", "en") if made == "hu" else ("hu", "en", "en", "hu"):
                with i18n.use_locale(locale):
                    labels = {a.option: a.label for a in engine.legal_actions(game, seat)}
                    prompt = engine.decision(game)["prompt"]  # type: ignore[index]
                wanted = hungarian if locale == "hu" else english
                assert labels == {o: wanted[o] for o in labels}, (made, locale)
                assert prompt.startswith("Lámpagyújtók céhe: " if locale == "hu" else "Lamplighters' Guild: ")
        if seen >= 6:
            break
    assert seen >= 6  # the guild's decision was reached, settled in either language
