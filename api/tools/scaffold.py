"""``darkroad new-plugin NAME [--kind building|bot]``: the files of a new fan plugin package.

The package is what ``plugins/examples/fan_pack`` is, cut down to one component: a
``pyproject.toml`` registering the module under the ``darkroad`` entry-point group, the
module (a building with a working effect: gain 1 lantern and 1 coin; or a bot that keeps
the action leaving it the most coins and prestige), its message catalog (a gettext domain
named after the package, declared in its ``__init__.py``: the Hungarian ``.po`` with the
component's name and text translated, compiled to ``.mo``, and a ``babel.cfg`` to keep it
with ``pybabel``), a test using ``darkroad.testing`` that passes once the package is installed
(the catalog complete included), a README and a ``.gitignore``. The templates are plain
strings with ``{{key}}`` placeholders (Python code and TOML are full of ``{}`` and ``$``, so
neither ``str.format`` nor ``string.Template`` fits).

Names derived from NAME (``lamp-tower``, or ``darkroad-lamp-tower``):

==================  =======================  ===========================================
what                example                  used for
==================  =======================  ===========================================
distribution        ``darkroad-lamp-tower``  ``pip install``, PyPI
package             ``darkroad_lamp_tower``  the import name (``src/<package>/``)
plugin              ``lamp-tower``           the entry-point name: ``darkroad plugins``,
                                             errors, ``config.plugins`` of a game
component           ``lamp_tower``           the building id (``"buildings": [...]``), or
                                             the bot id (``darkroad simulate --bot``)
==================  =======================  ===========================================
"""

from __future__ import annotations

import io
import keyword
import re
from collections.abc import Iterable
from pathlib import Path

import attrs
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import write_po

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$")
MAX_NAME = 40
PREFIX = "darkroad"
TEST_BUILDINGS = ("blazing_quartz_mine", "oracle_of_lumi", "yedls_workshop")
"""Base game buildings the generated test plays next to the new one (one side of three tiles)."""
KINDS = ("building", "bot")
"""What ``new-plugin`` can scaffold."""


class ScaffoldError(ValueError):
    """NAME is unusable, or the package folder cannot be created."""


@attrs.frozen
class PluginNames:
    """Every name of a scaffolded plugin, derived from NAME."""

    folder: str
    dist: str
    package: str
    plugin: str
    component: str
    title: str

    @property
    def classname(self) -> str:
        """The Python class of a bot: ``LampTowerBot``."""
        return self.title.replace(" ", "") + "Bot"

    def values(self) -> dict[str, str]:
        return {**attrs.asdict(self), "classname": self.classname}


def plugin_names(name: str) -> PluginNames:
    """The names of plugin ``name``, or :class:`ScaffoldError` saying what is wrong with it."""
    if not NAME_PATTERN.match(name) or len(name) > MAX_NAME:
        raise ScaffoldError(
            f"{name!r} is not a plugin name: use lowercase letters, digits and single '-' or '_' between "
            f"them, starting with a letter, at most {MAX_NAME} characters (e.g. 'lamp-tower')")
    words = re.split(r"[-_]", name)
    if words[0] == PREFIX:
        words = words[1:]
    if not words:
        raise ScaffoldError(f"{name!r} names darkroad itself: add what your plugin is (e.g. 'darkroad-lamp-tower')")
    component = "_".join(words)
    if not component[0].isalpha():
        raise ScaffoldError(f"{name!r}: the part after 'darkroad-' must start with a letter (it is the building id)")
    if keyword.iskeyword(component):
        raise ScaffoldError(f"{name!r}: {component!r} is a Python keyword and cannot name the building's module")
    if component in TEST_BUILDINGS:
        raise ScaffoldError(f"{name!r}: {component!r} is a base game building")
    dist = "-".join([PREFIX, *words])
    return PluginNames(folder=name, dist=dist, package=dist.replace("-", "_"), plugin="-".join(words),
                       component=component, title=" ".join(w.capitalize() for w in words))


def render(template: str, names: PluginNames) -> str:
    out = template
    for key, value in names.values().items():
        out = out.replace("{{" + key + "}}", value)
    if "{{" in out:
        raise AssertionError(f"unfilled placeholder in a template: {out[out.index('{{'):][:40]!r}")
    return out


HUNGARIAN = {
    "building": {"Gain 1 lantern and 1 coin.": "Kapsz 1 lámpást és 1 pénzt."},
    "bot": {"Keeps the action that leaves it the most coins and prestige (the lower of the two counts most).":
            "Azt a lépést választja, amely után a legtöbb pénze és presztízse marad (a kettő közül a "
            "kevesebb számít leginkább)."},
}
"""The Hungarian of each kind's text (in the words of the published edition: docs/hu-glossary.md);
the component's name is kept as it is, as the edition keeps the buildings' and companions' names."""


def catalog_files(names: PluginNames, kind: str) -> dict[str, str | bytes]:
    """The package's Hungarian catalog (``.po``) and its compiled ``.mo``: the component's name
    (kept) and text (translated), as ``pybabel extract`` and ``update`` would list them."""
    catalog = Catalog(locale="hu", domain=names.package, project=names.dist, version="0.1.0", charset="utf-8",
                      msgid_bugs_address="", copyright_holder="", last_translator="", language_team="")
    catalog.add(names.title, names.title, [(f"src/{names.package}/{names.component}.py", 0)])
    for english, hungarian in HUNGARIAN[kind].items():
        catalog.add(english, hungarian, [(f"src/{names.package}/{names.component}.py", 0)])
    catalog.fuzzy = False
    catalog.header_comment = (f"# Hungarian translations of {names.title} ({names.dist}).\n"
                              "# Kept with pybabel (README.md, \"Translate\").\n#")
    po, mo = io.BytesIO(), io.BytesIO()
    write_po(po, catalog, width=100, omit_header=False, include_lineno=False)
    write_mo(mo, catalog)
    folder = f"src/{names.package}/locale/hu/LC_MESSAGES/{names.package}"
    return {f"{folder}.po": po.getvalue().decode("utf-8"), f"{folder}.mo": mo.getvalue()}


def translation_test(kind: str) -> str:
    """The generated tests of the package's catalog, with the Hungarian of ``kind``'s text."""
    ((english, hungarian),) = HUNGARIAN[kind].items()
    return TRANSLATION_TEST.replace("{{text}}", _literal(english)).replace("{{hungarian}}", _literal(hungarian))


def _literal(text: str, width: int = 72) -> str:
    """``text`` as a Python literal of short lines (implicit concatenation, in parentheses)."""
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + len(word) + 1 > width:
            lines.append(line + " ")
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "(" + "\n        ".join(map(repr, lines)) + ")"


def files(names: PluginNames, kind: str = "building") -> dict[str, str | bytes]:
    """Relative path -> text (or bytes: a compiled catalog) of every file of the package
    (``kind``: one of :data:`KINDS`)."""
    module, test, readme, what = {
        "building": (BUILDING, TEST, README, "building"),
        "bot": (BOT, BOT_TEST, BOT_README, "bot"),
    }[kind]
    return {
        "pyproject.toml": render(PYPROJECT.replace("a fan-made building", f"a fan-made {what}"), names),
        "README.md": render(readme + TRANSLATE, names),
        ".gitignore": GITIGNORE,
        "babel.cfg": BABEL_CFG,
        f"src/{names.package}/__init__.py": render(INIT.replace("a fan-made building", f"a fan-made {what}"), names),
        f"src/{names.package}/{names.component}.py": render(module, names),
        **catalog_files(names, kind),
        f"tests/test_{names.component}.py": render(test + translation_test(kind), names),
    }


def scaffold(name: str, output: Path, taken_components: Iterable[str] = (),
             taken_plugins: Iterable[str] = (), taken_dists: Iterable[str] = (), kind: str = "building",
             taken_bots: Iterable[str] = ()) -> tuple[Path, PluginNames]:
    """Create the package folder ``output/name`` with a ``kind`` plugin (:data:`KINDS`);
    refuse an existing folder and names already used by an installed plugin (``taken_*``).
    Returns the folder and the names."""
    if kind not in KINDS:
        raise ScaffoldError(f"cannot scaffold a {kind!r}: choose one of {', '.join(KINDS)}")
    names = plugin_names(name)
    if kind == "building" and names.component in set(taken_components):
        raise ScaffoldError(f"a component {names.component!r} is already installed: choose another name")
    if kind == "bot" and names.component in set(taken_bots):
        raise ScaffoldError(f"a bot {names.component!r} is already installed: choose another name")
    if names.plugin in set(taken_plugins):
        raise ScaffoldError(f"a plugin named {names.plugin!r} is already installed: choose another name")
    if names.dist in {d.lower().replace("_", "-") for d in taken_dists}:
        raise ScaffoldError(f"a distribution {names.dist!r} is already installed: choose another name")
    target = output / names.folder
    if target.exists():
        raise ScaffoldError(f"{target} already exists: not overwriting it (choose another name or --output)")
    output.mkdir(parents=True, exist_ok=True)
    target.mkdir()
    for rel, text in files(names, kind).items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return target, names


# -- templates -------------------------------------------------------------------------------------

PYPROJECT = '''\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "{{dist}}"
version = "0.1.0"
description = "{{title}}: a fan-made building for darkroad (Merchants of the Dark Road)."
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["darkroad>=0.1"]

[project.optional-dependencies]
test = ["pytest>=8"]

# darkroad loads every entry point of the "darkroad" group. The name on the left is the
# plugin's name (listed by `darkroad plugins`, named in errors, recorded with this
# package's version by every game that uses a component of it); the value is the module.
# Editing an entry point takes a new `pip install -e .` (the installed metadata holds them).
[project.entry-points.darkroad]
{{plugin}} = "{{package}}.{{component}}"

[tool.setuptools.packages.find]
where = ["src"]

[tool.setuptools.package-data]
# The compiled message catalogs (README, "Translate").
{{package}} = ["locale/*/LC_MESSAGES/*.mo"]

[tool.pytest.ini_options]
testpaths = ["tests"]
'''

INIT = '''\
"""{{title}}: a fan-made building for darkroad (Merchants of the Dark Road)."""

from importlib.resources import files

from darkroad.core import i18n

__version__ = "0.1.0"

MESSAGES = i18n.Domain("{{package}}", files(__name__) / "locale", package=__name__)
"""The package's message catalog (``locale/<language>/LC_MESSAGES/{{package}}.po``, compiled
to ``.mo``): the names and texts of its components, in every language it speaks."""
'''

BUILDING = '''\
"""{{title}}, a fan-made building: gain 1 lantern and 1 coin.

Change ``EFFECTS`` (the effect language: "The effect language" in darkroad's
docs/plugins.md), or push a decision of your own from ``darkroad_activate_building``
(the tutorial in docs/plugins.md shows how). Import only ``darkroad.core``.
"""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl, i18n

N_ = i18n.N_  # marks a text kept as data: translated from the package's catalog where it is shown

ID = "{{component}}"
EFFECTS = ["lantern:1", "coins:1"]


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("building", ID, N_("{{title}}"), N_("Gain 1 lantern and 1 coin."))]


@hookimpl
def darkroad_activate_building(ctx: Ctx, seat: int, building: str) -> bool | None:
    if building != ID:
        return None  # another plugin's building
    ctx.gain_effects(seat, EFFECTS, source=ID)
    return True
'''

TEST = '''\
"""Tests of {{title}} through the real engine, with darkroad's testing kit.

Install the package first (``pip install -e '.[test]'``): the building then arrives
through its entry point, exactly as on a darkroad server. Then run ``pytest``.
"""

from __future__ import annotations

import importlib.metadata

from darkroad.core import Engine, i18n
from darkroad.testing import Table

BUILDING = "{{component}}"
PLUGIN = "{{plugin}}"
MODULE = "{{package}}.{{component}}"
# A game has 4 buildings: this one and three of the base game.
BUILDINGS = [BUILDING, "blazing_quartz_mine", "oracle_of_lumi", "yedls_workshop"]


def test_the_plugin_is_installed() -> None:
    names = [ep.name for ep in importlib.metadata.entry_points(group="darkroad")]
    assert PLUGIN in names, "install this package first: pip install -e ."


def test_activation_gains_a_lantern_and_a_coin() -> None:
    t = Table.new(players=2, seed=1, buildings=BUILDINGS)
    t.setup_wagon(0, lanterns=0, coins=0)
    t.activate_building(0, BUILDING)  # seat 0 is activating the building now
    p = t.game.players[0]
    assert (p.lanterns, p.coins) == (1, 1)
    call = t.calls("darkroad_activate_building")[-1]  # every hook call is recorded
    assert (call.kwargs["building"], call.result) == (BUILDING, True)


def test_a_complete_game() -> None:
    t = Table.new(players=3, seed=2, buildings=BUILDINGS)
    t.play(seed=2)  # random legal actions until the game ends
    assert t.game.finished
    assert PLUGIN in t.game.config.plugins
'''

README = '''\
# {{dist}}

**{{title}}**, a fan-made building for [darkroad](https://pypi.org/project/darkroad/), the
game-state service for *Merchants of the Dark Road*: "Gain 1 lantern and 1 coin."

| | |
| --- | --- |
| building id | `{{component}}` |
| plugin (entry point) | `{{plugin}}` |
| package | `{{package}}` |

## Develop

```console
$ pip install -e '.[test]'     # in the environment where darkroad is installed
$ darkroad plugins             # lists {{plugin}}
$ pytest                       # tests/test_{{component}}.py
```

The building is `src/{{package}}/{{component}}.py`; darkroad's `docs/plugins.md` has the
tutorial and the reference of every hook. Editing the entry points in `pyproject.toml`
takes a new `pip install -e .`.

## Play

Fan buildings take part in a game when it is created with them (4 buildings):

```console
$ curl -X POST http://127.0.0.1:8000/v1/games -H 'Content-Type: application/json' \\
    -d '{"players": 2, "buildings": ["{{component}}", "blazing_quartz_mine", "oracle_of_lumi", "yedls_workshop"]}'
```

## Publish

```console
$ python -m pip install build twine
$ python -m build
$ python -m twine upload dist/*
```
'''

BOT = '''\
"""{{title}}, a fan-made bot for darkroad: it keeps the action that leaves its seat the
most coins and prestige, the lower of the two counting most (the base score at final
scoring is the lower one).

It knows what its seat knows (docs/agents.md, "The bot interface"): it tries every legal
action on a game drawn from what its seat sees (``state.sample()``: the hidden cards and
the dice to come drawn again) and values the position with ``value``; change that to make
it play differently (docs/plugins.md, "Bots", has the rules every bot follows). Ties are
broken with ``state.rng``, seeded by the position, so the same position always gets the
same answer. Import only ``darkroad.core``.
"""

from __future__ import annotations

from darkroad.core import Action, Bot, Game, InfoState, hookimpl, i18n

N_ = i18n.N_  # marks a text kept as data: translated from the package's catalog where it is shown

ID = "{{component}}"


def value(game: Game, seat: int) -> float:
    """How good the position is for ``seat``: the lower of its coins and prestige, and a
    little for the higher one."""
    p = game.players[seat]
    return min(p.coins, p.prestige) + 0.1 * max(p.coins, p.prestige)


class {{classname}}(Bot):
    id = ID
    name = N_("{{title}}")
    text = N_("Keeps the action that leaves it the most coins and prestige "
              "(the lower of the two counts most).")

    def decide(self, state: InfoState) -> Action:
        engine, seat = state.engine, state.seat
        world = state.sample()  # a game drawn from what the seat sees, never the real one
        best: list[Action] = []
        best_value = float("-inf")
        for action in state.legal:
            trial = engine.copy(world)  # each action on a copy of the same world
            engine.apply(trial, action, track_undo=False)
            v = value(trial, seat)
            if v > best_value:
                best, best_value = [action], v
            elif v == best_value:
                best.append(action)
        return state.rng.choice(best)


@hookimpl
def darkroad_bots() -> list[Bot]:
    return [{{classname}}()]
'''

BOT_TEST = '''\
"""Tests of the {{title}} bot through the real engine, with darkroad's testing kit.

Install the package first (``pip install -e '.[test]'``): the bot then arrives through
its entry point, exactly as in ``darkroad simulate``. Then run ``pytest``.
"""

from __future__ import annotations

import importlib.metadata
import random

from darkroad.core import Engine, i18n
from darkroad.testing import Table

BOT = "{{component}}"
PLUGIN = "{{plugin}}"
MODULE = "{{package}}.{{component}}"


def test_the_plugin_is_installed() -> None:
    names = [ep.name for ep in importlib.metadata.entry_points(group="darkroad")]
    assert PLUGIN in names, "install this package first: pip install -e ."
    assert BOT in Engine.load().bots


def test_it_answers_with_a_legal_action_and_always_the_same() -> None:
    t = Table.new(players=2, seed=1)
    t.play(until=lambda t: len(t.legal()) > 1)  # a real choice
    bot = t.engine.bots[BOT]
    seat = t.awaiting[0]
    action = t.engine.bot_choice(t.game, seat, bot)  # the one way to ask a bot
    assert action in t.legal(seat)
    assert t.engine.bot_choice(t.game, seat, bot) == action  # the same position, the same answer


def test_it_answers_from_what_its_seat_knows() -> None:
    """The same answer in every game the seat cannot tell from the real one (the other
    seats' deeds and coins, the decks' order and the dice to come drawn again)."""
    t = Table.new(players=2, seed=3)
    t.play(until=lambda t: t.game.version >= 30 and len(t.legal()) > 1)
    bot = t.engine.bots[BOT]
    seat = t.awaiting[0]
    action = t.engine.bot_choice(t.game, seat, bot)
    for k in range(3):
        other = t.engine.determinize(t.game, seat, random.Random(k))
        assert t.engine.bot_choice(other, seat, bot) == action


def test_a_complete_game() -> None:
    t = Table.new(players=2, seed=2)
    t.play(bots=[t.engine.bots[BOT], t.engine.bots["random"]])  # seat 0: this bot; seat 1: random play
    assert t.game.finished
'''

BOT_README = '''\
# {{dist}}

**{{title}}**, a fan-made bot for [darkroad](https://pypi.org/project/darkroad/), the
game-state service for *Merchants of the Dark Road*: it keeps the action that leaves it
the most coins and prestige.

| | |
| --- | --- |
| bot id | `{{component}}` |
| plugin (entry point) | `{{plugin}}` |
| package | `{{package}}` |

## Develop

```console
$ pip install -e '.[test]'     # in the environment where darkroad is installed
$ darkroad plugins             # lists {{plugin}} with "bot:{{component}}"
$ pytest                       # tests/test_{{component}}.py
```

The bot is `src/{{package}}/{{component}}.py`; darkroad's `docs/plugins.md` ("Bots") has
the interface and the rules a bot follows. Editing the entry points in `pyproject.toml`
takes a new `pip install -e .`.

## Play

```console
$ darkroad simulate --games 20 --players 4 --bot {{component}},greedy
```

## Publish

```console
$ python -m pip install build twine
$ python -m build
$ python -m twine upload dist/*
```
'''

BABEL_CFG = """\
# How pybabel reads this package's sources for the texts players read (README, "Translate").
[python: **.py]
"""

TRANSLATE = '''
## Translate

Players read the component's name and text in their own language (darkroad answers in the
caller's `Accept-Language`). They are marked with `N_` where they are written and translated
from this package's own catalog, `src/{{package}}/locale/<language>/LC_MESSAGES/{{package}}.po`
(Hungarian is there already; the name is kept as printed, as the Hungarian edition keeps the
buildings' names). After changing a text, or to add a language (`-l de`):

```console
$ pip install babel
$ pybabel extract -F babel.cfg -k N_ -o messages.pot src
$ pybabel update  -i messages.pot -d src/{{package}}/locale -D {{package}}    # pybabel init ... -l de for a new language
$ # translate the new entries (msgstr "") and drop the "fuzzy" flags, then
$ pybabel compile -d src/{{package}}/locale -D {{package}}
```

`tests/test_{{component}}.py` fails while a text players read is missing from a catalog,
untranslated or not compiled. darkroad's `docs/plugins.md` ("Translating a plugin") says more.
'''

TRANSLATION_TEST = '''

def test_every_text_players_read_is_translated() -> None:
    """The name and text of what this package adds are in every catalog of its
    ``locale`` folder, translated (not empty, not fuzzy), and the compiled ``.mo`` the
    installed package reads says the same (README, "Translate")."""
    from pathlib import Path

    from babel.messages.pofile import read_po

    engine = Engine.load()
    texts = [t for c in engine.catalog() if c["plugin"] == PLUGIN for t in i18n.component_texts(c)]
    for bot in engine.bots.values():
        if engine.bot_plugins[bot.id] == PLUGIN:
            texts += [bot.name, bot.text]
    assert texts, "install this package first: pip install -e ."
    domain = i18n.messages(MODULE)
    assert domain.name == "{{package}}", "no catalog declared (MESSAGES in the package's __init__.py)"
    # The sources' catalogs (an install ships only the compiled .mo).
    locale = Path(__file__).resolve().parent.parent / "src" / "{{package}}" / "locale"
    catalogs = sorted(locale.glob("*/LC_MESSAGES/{{package}}.po"))
    assert catalogs, f"no catalog in {locale}"
    for po in catalogs:
        with po.open("rb") as f:
            catalog = read_po(f)
        for text in texts:
            message = catalog.get(text)
            assert message is not None, f"{po}: {text!r} is missing (pybabel extract and update)"
            assert message.string and not message.fuzzy, f"{po}: {text!r} is not translated"
            language = po.parent.parent.name
            assert domain.translations(language).gettext(text) == message.string, f"{po}: not compiled"


def test_its_text_in_hungarian() -> None:
    """What a Hungarian player reads (``Accept-Language: hu``)."""
    domain = i18n.messages(importlib.import_module(MODULE).__name__)  # (importing it declares the catalog)
    english = {{text}}
    hungarian = {{hungarian}}
    with i18n.use_locale("hu"):
        assert domain.gettext(english) == hungarian
'''

GITIGNORE = """\
__pycache__/
*.egg-info/
build/
dist/
.venv/
"""
