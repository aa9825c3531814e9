"""``darkroad new-plugin NAME``: a fan plugin package that works out of the box.

The scaffold is checked three ways, from cheap to real:

* in-process: the generated module, loaded by path, registered with
  ``Table.new(plugins=...)`` / ``Engine.load(extra=...)``, plays;
* installed: by a real ``pip install --target`` of the package (it builds a wheel), in a
  folder on ``PYTHONPATH`` of a subprocess, where ``darkroad plugins --json`` lists it, the
  generated test passes, ``GET /v1/catalog`` shows it and a game created with it completes
  over the API;
* installed by simulation (a ``.dist-info`` folder with the generated entry point next to the
  package), where one install per test is needed: a package changed by the test, the bot's, and
  the installed tests above where pip cannot build the package without downloading setuptools.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pip_builds import builds_offline
from typer.testing import CliRunner

from darkroad.api import cli
from darkroad.api.tools import scaffold
from darkroad.api.tools.scaffold import PluginNames, ScaffoldError, plugin_names
from darkroad.core import Engine
from darkroad.testing import Table

NAME = "lamp-tower"
COMPONENT, PLUGIN, DIST, PACKAGE = "lamp_tower", "lamp-tower", "darkroad-lamp-tower", "darkroad_lamp_tower"
OTHERS = ["blazing_quartz_mine", "oracle_of_lumi", "yedls_workshop"]
runner = CliRunner()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One package scaffolded by the CLI, shared by the tests that only read or run it."""
    out = tmp_path_factory.mktemp("scaffold")
    result = runner.invoke(cli.app, ["new-plugin", NAME, "--output", str(out)])
    assert result.exit_code == 0, result.output
    return out / NAME


def load_module(folder: Path, package: str = PACKAGE, name: str = COMPONENT) -> ModuleType:
    """The generated module (by default the building's), imported from its file (nothing installed)."""
    path = folder / "src" / package / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{package}.{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake_install(folder: Path, site: Path) -> dict[str, str]:
    """What ``pip install`` leaves for importlib.metadata (a ``.dist-info`` with the
    entry points of the generated pyproject.toml) in ``site``; the environment of a
    subprocess that sees the package as installed."""
    project = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n",
                                   encoding="utf-8")
    lines = [f"{ep} = {target}" for ep, target in project["entry-points"]["darkroad"].items()]
    (info / "entry_points.txt").write_text("[darkroad]\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return environment(site, folder / "src")


def environment(*paths: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env["PYTHONPATH"] = os.pathsep.join([*map(str, paths), *filter(None, [os.environ.get("PYTHONPATH")])])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run(args: list[str], env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


def plugins_json(env: dict[str, str]) -> dict[str, Any]:
    done = run(["-m", "darkroad.api", "plugins", "--json"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads(done.stdout))


INNER_PYTEST = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:benchmark",
                "-p", "no:faker", "-p", "no:schemathesis", "-p", "no:anyio",
                "-p", "no:hypothesispytest", "-p", "no:xdist", "-p", "no:xdist.looponfail", "-p", "no:asyncio",
                "tests"]
"""A fan's pytest run of a package's own tests, in this environment: without the pytest plugins
of darkroad's test extras, which a fan's plain tests (the scaffold's, the example fan pack's) do
not use: each would be loaded at the run's start (hypothesis' plugin imports all of hypothesis)."""


def run_generated_tests(folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run(INNER_PYTEST, env, cwd=folder)


# -- names -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,names", [
    ("lamp-tower", ("lamp-tower", "darkroad-lamp-tower", "darkroad_lamp_tower", "lamp-tower", "lamp_tower",
                    "Lamp Tower")),
    ("darkroad-lamp-tower", ("darkroad-lamp-tower", "darkroad-lamp-tower", "darkroad_lamp_tower", "lamp-tower",
                             "lamp_tower", "Lamp Tower")),
    ("frost_orchard2", ("frost_orchard2", "darkroad-frost-orchard2", "darkroad_frost_orchard2", "frost-orchard2",
                        "frost_orchard2", "Frost Orchard2")),
    ("bell", ("bell", "darkroad-bell", "darkroad_bell", "bell", "bell", "Bell")),
])
def test_names(name: str, names: tuple[str, ...]) -> None:
    assert plugin_names(name) == PluginNames(*names)


@pytest.mark.parametrize("name", [
    "", "Lamp", "lamp tower", "1lamp", "lamp--tower", "-lamp", "lamp-", "lamp.tower", "lämp", "lamp/tower",
    "darkroad", "darkroad-2x", "class", "import", "x" * 41, "oracle-of-lumi",
])
def test_bad_names(name: str) -> None:
    with pytest.raises(ScaffoldError):
        plugin_names(name)


# -- the command -------------------------------------------------------------------------------------------


def test_registered_on_the_cli() -> None:
    assert "new-plugin" in [c.name for c in cli.app.registered_commands]


def test_files(folder: Path) -> None:
    catalog = f"src/{PACKAGE}/locale/hu/LC_MESSAGES/{PACKAGE}"
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) == [
        ".gitignore", "README.md", "babel.cfg", "pyproject.toml", f"src/{PACKAGE}/__init__.py",
        f"src/{PACKAGE}/{COMPONENT}.py", f"{catalog}.mo", f"{catalog}.po", f"tests/test_{COMPONENT}.py"]
    pyproject = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
    project = pyproject["project"]
    assert (project["name"], project["version"]) == (DIST, "0.1.0")
    assert project["entry-points"] == {"darkroad": {PLUGIN: f"{PACKAGE}.{COMPONENT}"}}
    assert any(d.startswith("darkroad") for d in project["dependencies"])
    assert pyproject["tool"]["setuptools"]["packages"]["find"]["where"] == ["src"]
    for path in folder.rglob("*.py"):
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
    assert COMPONENT in (folder / "README.md").read_text(encoding="utf-8")


def test_default_output_is_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(cli.app, ["new-plugin", "bell"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "bell" / "src" / "darkroad_bell" / "bell.py").is_file()
    assert "darkroad-bell" in result.output and "pip install -e" in result.output


def test_refuses_to_overwrite(tmp_path: Path) -> None:
    (tmp_path / NAME).mkdir()
    (tmp_path / NAME / "mine.txt").write_text("keep me", encoding="utf-8")
    result = runner.invoke(cli.app, ["new-plugin", NAME, "--output", str(tmp_path)])
    assert result.exit_code == 1
    assert "already exists" in result.output
    assert [p.name for p in (tmp_path / NAME).iterdir()] == ["mine.txt"]


@pytest.mark.parametrize("name", ["Lamp Tower", "lamp.tower", "darkroad"])
def test_bad_name_is_a_usage_error(tmp_path: Path, name: str) -> None:
    result = runner.invoke(cli.app, ["new-plugin", name, "--output", str(tmp_path)])
    assert result.exit_code == 2
    said = " ".join(result.output.replace("│", " ").split())  # unwrap rich's error box
    assert "Invalid value for NAME" in said and repr(name) in said
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name,clash", [
    ("guildmasters-mansion", "component 'guildmasters_mansion'"),  # a base game building
    ("basegame", "plugin named 'basegame'"),
    ("steed-velvet", "plugin named 'steed-velvet'"),
])
def test_refuses_names_of_installed_plugins(tmp_path: Path, name: str, clash: str) -> None:
    result = runner.invoke(cli.app, ["new-plugin", name, "--output", str(tmp_path)])
    assert result.exit_code == 1
    assert clash in result.output and "already installed" in result.output
    assert list(tmp_path.iterdir()) == []


def test_refuses_an_installed_distribution(tmp_path: Path) -> None:
    with pytest.raises(ScaffoldError, match="distribution 'darkroad-lamp-tower'"):
        scaffold.scaffold(NAME, tmp_path, taken_dists=["darkroad_lamp_tower"])


# -- the generated package works -------------------------------------------------------------------------------


def test_in_process_the_building_plays(folder: Path) -> None:
    module = load_module(folder)
    engine = Engine.load(extra=[(PLUGIN, module)])
    comp = engine.content.components[COMPONENT]
    assert (comp.kind, comp.plugin, comp.name) == ("building", PLUGIN, "Lamp Tower")

    t = Table.new(players=2, seed=1, buildings=[COMPONENT, *OTHERS], plugins=[(PLUGIN, module)])
    t.setup_wagon(0, lanterns=0, coins=0)
    t.activate_building(0, COMPONENT)
    assert (t.game.players[0].lanterns, t.game.players[0].coins) == (1, 1)
    assert t.calls("darkroad_activate_building")[-1].result is True
    t.play(seed=3)
    assert t.game.finished and PLUGIN in t.game.config.plugins


def test_the_generated_test_fails_on_a_text_the_catalog_lacks(tmp_path: Path) -> None:
    """A fan who changes the building's text without updating the catalog is told so by the
    package's own test (the English text is still shown: gettext's fallback)."""
    target, _ = scaffold.scaffold(NAME, tmp_path / "pkg")
    module = target / "src" / PACKAGE / f"{COMPONENT}.py"
    module.write_text(module.read_text(encoding="utf-8").replace("Gain 1 lantern and 1 coin.", "Gain 2 lanterns."),
                      encoding="utf-8")
    done = run_generated_tests(target, fake_install(target, tmp_path / "site"))
    assert done.returncode == 1
    assert "'Gain 2 lanterns.' is missing (pybabel extract and update)" in done.stdout


def test_the_generated_test_says_to_install_first(folder: Path) -> None:
    done = run_generated_tests(folder, environment(folder / "src"))
    assert done.returncode == 1
    assert "pip install -e ." in done.stdout


@dataclass(frozen=True)
class Installed:
    """The scaffolded package installed: its source folder, the environment of a subprocess that
    sees it installed, and where (``site``: a real install's target; None: simulated)."""

    folder: Path
    env: dict[str, str]
    site: Path | None


INSTALLED = pytest.mark.xdist_group("scaffold-installed")
"""The tests of the ``installed`` package run on one worker under ``--dist loadgroup``, so that
the package is built and installed once for all of them."""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """A fresh scaffold (pip builds in its folder) installed by ``pip install --target`` into a
    folder of its own (not this environment), once for the tests that run it in a subprocess;
    installed by simulation (:func:`fake_install`) where pip cannot build it without
    downloading setuptools."""
    out = tmp_path_factory.mktemp("scaffold-installed")
    target, _ = scaffold.scaffold(NAME, out / "src")
    site = out / "site"
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile", "--disable-pip-version-check",
           "--target", str(site), str(target)]
    offline = builds_offline()
    if offline:
        cmd.insert(4, "--no-build-isolation")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if done.returncode and not offline and "setuptools" in done.stdout + done.stderr:
        return Installed(target, fake_install(target, out / "fake-site"), None)
    assert done.returncode == 0, done.stdout + done.stderr
    return Installed(target, environment(site), site)


@INSTALLED
def test_pip_installs_it_with_its_catalog(installed: Installed) -> None:
    """``pip install`` of a fresh scaffold: the compiled catalog is package data."""
    if installed.site is None:
        pytest.skip("cannot build without downloading setuptools (the tests of the installed package ran on a "
                    "simulated install)")
    assert (installed.site / PACKAGE / "locale" / "hu" / "LC_MESSAGES" / f"{PACKAGE}.mo").is_file()


@INSTALLED
def test_the_generated_test_passes_once_installed(installed: Installed) -> None:
    done = run_generated_tests(installed.folder, installed.env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 passed" in done.stdout


@INSTALLED
def test_installed_it_is_listed_by_darkroad_plugins(installed: Installed) -> None:
    report = plugins_json(installed.env)
    [listed] = [p for p in report["plugins"] if p["name"] == PLUGIN]
    assert (listed["version"], listed["dist"], listed["module"], listed["builtin"]) == (
        "0.1.0", DIST, f"{PACKAGE}.{COMPONENT}", False)
    assert listed["hooks"] == ["darkroad_activate_building", "darkroad_components"]
    assert {"kind": "building", "id": COMPONENT, "name": "Lamp Tower", "plugin": PLUGIN,
            "version": "0.1.0"} in report["components"]
    assert report["failed"] == {}


API_GAME = """
import json, random
from litestar.testing import TestClient
from darkroad.api.http.app import create_app
from darkroad.api.settings import Settings

with TestClient(app=create_app(Settings())) as client:
    catalog = client.get("/v1/catalog").json()["components"]
    hungarian = client.get("/v1/catalog", headers={"Accept-Language": "hu"}).json()["components"]
    created = client.post("/v1/games", json={"players": 2, "seed": 4, "buildings": BUILDINGS})
    assert created.status_code == 201, created.text
    game = created.json()
    url = "/v1/games/" + game["id"]
    auth = {s["seat"]: {"Authorization": "Bearer " + s["token"]} for s in game["seats"]}
    rnd = random.Random(4)
    view = client.get(url).json()
    for _ in range(50_000):
        if view["status"] == "finished":
            break
        seat = view["awaiting"][0]  # the view an action answers with says whose turn it is
        page = client.get(url + "/actions", headers=auth[seat]).json()
        headers = {**auth[seat], "If-Match": '"%d"' % page["version"]}
        done = client.post(url + "/actions", json=rnd.choice(page["actions"]), headers=headers)
        assert done.status_code == 200, done.text
        view = done.json()
    view = client.get(url).json()  # the game as stored, read by anyone
    print(json.dumps({"catalog": catalog["building"], "hu": hungarian["building"], "status": view["status"],
                      "config": view["config"]}))
"""


@INSTALLED
def test_installed_it_is_in_the_catalog_and_a_game_with_it_completes_over_the_api(installed: Installed) -> None:
    env = installed.env
    script = f"BUILDINGS = {[COMPONENT, *OTHERS]!r}\n" + textwrap.dedent(API_GAME)
    done = run(["-c", script], env)
    assert done.returncode == 0, done.stdout + done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    [tower] = [c for c in out["catalog"] if c["id"] == COMPONENT]
    assert (tower["plugin"], tower["version"]) == (PLUGIN, "0.1.0")
    [magyar] = [c for c in out["hu"] if c["id"] == COMPONENT]  # from the package's own catalog
    assert (magyar["name"], magyar["text"]) == ("Lamp Tower", "Kapsz 1 lámpást és 1 pénzt.")
    assert out["status"] == "finished"
    assert COMPONENT in out["config"]["buildings"]
    assert out["config"]["plugins"][PLUGIN] == "0.1.0"


# ruff and mypy are installed next to this Python (the test extras), which may not be on PATH.
BIN = os.path.dirname(sys.executable)


@pytest.mark.skipif(shutil.which("ruff", path=BIN) is None, reason="ruff is not installed")
def test_the_generated_code_is_lint_clean(folder: Path) -> None:
    done = subprocess.run([shutil.which("ruff", path=BIN) or "ruff", "check", "--no-cache", "--isolated", "--line-length", "110", "--select",
                           "E,F,W,I,B,UP,SIM", str(folder)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(shutil.which("mypy", path=BIN) is None, reason="mypy is not installed")
def test_the_generated_code_type_checks(tmp_path: Path) -> None:
    """A fan starts from code that passes ``mypy --strict`` (darkroad's own setting), whichever
    kind: a building's package and a bot's, checked in one mypy run (each run analyses darkroad
    itself from its sources: a run a kind analysed it twice)."""
    targets = [scaffold.scaffold(NAME if kind == "building" else BOT_NAME, tmp_path / kind, kind=kind)[0]
               for kind in ("building", "bot")]
    # darkroad as mypy sees an installed (typed, py.typed) copy: its packages under their
    # names (the editable install maps the repository's folders with an import hook).
    root = Path(__file__).resolve().parent.parent
    dirs = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    for package, where in dirs.items():
        link = tmp_path / "installed" / Path(*package.split("."))
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(root / where)
    sources = [str(target / part) for target in targets for part in ("src", "tests")]
    done = subprocess.run([shutil.which("mypy", path=BIN) or "mypy", "--strict", "--no-incremental",
                           "--python-executable", sys.executable, *sources],
                          cwd=tmp_path, env={**environment(*(target / "src" for target in targets)),
                                             "MYPYPATH": os.pathsep.join([*(str(target / "src") for target in targets),
                                                                          str(tmp_path / "installed")])},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    checked = sum(1 for target in targets for part in ("src", "tests") for _ in (target / part).rglob("*.py"))
    assert f"no issues found in {checked} source files" in done.stdout, done.stdout


# -- a bot --------------------------------------------------------------------------------------------------

BOT_NAME, BOT_ID, BOT_PLUGIN, BOT_PACKAGE = "cautious-carl", "cautious_carl", "cautious-carl", "darkroad_cautious_carl"


@pytest.fixture(scope="module")
def bot_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("scaffold-bot")
    result = runner.invoke(cli.app, ["new-plugin", BOT_NAME, "--kind", "bot", "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert f"bot {BOT_ID!r}" in result.output
    return out / BOT_NAME


def test_bot_files(bot_folder: Path) -> None:
    project = tomllib.loads((bot_folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"] == {"darkroad": {BOT_PLUGIN: f"{BOT_PACKAGE}.{BOT_ID}"}}
    assert "bot" in project["description"]
    module = (bot_folder / "src" / BOT_PACKAGE / f"{BOT_ID}.py").read_text(encoding="utf-8")
    assert "class CautiousCarlBot(Bot):" in module and "darkroad_bots" in module


def test_in_process_the_bot_plays(bot_folder: Path) -> None:
    module = load_module(bot_folder, BOT_PACKAGE, BOT_ID)
    t = Table.new(players=2, seed=3, plugins=[(BOT_PLUGIN, module)])
    bot = t.engine.bots[BOT_ID]
    assert t.engine.bot_plugins[BOT_ID] == BOT_PLUGIN
    t.play(bots=[bot])
    assert t.game.finished
    assert BOT_PLUGIN not in t.game.config.plugins  # a bot is no part of a game's rules


def test_the_generated_bot_test_passes_once_installed(bot_folder: Path, tmp_path: Path) -> None:
    env = fake_install(bot_folder, tmp_path / "site")
    done = run_generated_tests(bot_folder, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "6 passed" in done.stdout
    report = plugins_json(env)
    assert {"kind": "bot", "id": BOT_ID, "name": "Cautious Carl", "plugin": BOT_PLUGIN,
            "version": "0.1.0"} in report["components"]
    done = run(["-m", "darkroad.api", "simulate", "--games", "1", "--players", "2", "--bot", f"{BOT_ID},random",
                "--json"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(json.loads(done.stdout)["win_rate_by_bot"]) == {BOT_ID, "random"}


def test_refuses_an_installed_bot_and_an_unknown_kind(tmp_path: Path) -> None:
    with pytest.raises(ScaffoldError, match="a bot 'greedy' is already installed"):
        scaffold.scaffold("greedy", tmp_path, kind="bot", taken_bots=["greedy", "random"])
    result = runner.invoke(cli.app, ["new-plugin", "thing", "--kind", "steed", "--output", str(tmp_path)])
    assert result.exit_code == 2 and "--kind" in result.output
    assert list(tmp_path.iterdir()) == []
