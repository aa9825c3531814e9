"""The layers, checked from the source: core's imports form a DAG, core imports neither
Litestar nor redis (nor the API or a plugin), plugins import only ``darkroad.core``'s
public API and the public kits of the component kinds (``darkroad.plugins.<kind>.kit``,
imported absolutely, so that any base-game module is a template a fan can copy; their tests
``darkroad.testing`` too), the API never imports a plugin.

Imports are read with ``ast``: every import that runs (at module level or inside a
function) counts; imports under ``if TYPE_CHECKING:`` do not.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import darkroad.core
import darkroad.testing

ROOT = Path(__file__).resolve().parent.parent
CORE, PLUGINS, API, ENV = ROOT / "core", ROOT / "plugins", ROOT / "api", ROOT / "env"
PACKAGE_OF = {CORE: "darkroad.core", PLUGINS: "darkroad.plugins", API: "darkroad.api", ENV: "darkroad.env"}


def package_of(path: Path) -> str:
    """The dotted package a module file belongs to (``core/testing_kit`` is ``darkroad.testing``)."""
    if path.parent == CORE / "testing_kit":
        return "darkroad.testing"
    for folder, package in PACKAGE_OF.items():
        if path.is_relative_to(folder):
            parts = path.relative_to(folder).parent.parts
            return ".".join([package, *parts])
    raise AssertionError(f"{path} is in none of the packages")


def runtime_imports(path: Path, package: str | None = None) -> Iterator[tuple[int, str, list[str]]]:
    """``(line, module, names)`` of every import of ``path`` that runs (relative imports
    resolved against ``package``; ``names`` empty for ``import x``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))

    def visit(node: ast.AST) -> Iterator[tuple[int, str, list[str]]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                yield from (i for n in child.orelse for i in visit_one(n))
                continue
            yield from visit_one(child)

    def visit_one(node: ast.AST) -> Iterator[tuple[int, str, list[str]]]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                assert package is not None, f"{path}: a relative import outside a package"
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            yield node.lineno, module, [a.name for a in node.names]
        else:
            yield from visit(node)

    yield from visit(tree)


def module_name(path: Path) -> str:
    """The dotted name of a module file (a package's ``__init__``: the package's)."""
    package = package_of(path)
    return package if path.stem == "__init__" else f"{package}.{path.stem}"


def core_graph() -> dict[str, set[str]]:
    """darkroad.core module (its subpackages' too: the rulebook's) -> the darkroad.core
    modules it imports when it runs."""
    paths = sorted(p for p in CORE.rglob("*.py") if package_of(p).startswith("darkroad.core"))
    modules = {module_name(p) for p in paths}
    graph: dict[str, set[str]] = {}
    for path in paths:
        edges = graph.setdefault(module_name(path), set())
        package = package_of(path)
        for _, module, names in runtime_imports(path, package):
            submodules = {f"{module}.{n}" for n in names if f"{module}.{n}" in modules}
            if submodules:  # from . import errors: the modules named, not their package
                edges |= submodules
            elif module in modules:
                edges.add(module)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` as a closed path of nodes, or None."""
    state: dict[str, int] = {}  # 1 visiting, 2 done
    path: list[str] = []

    def dfs(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := dfs(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := dfs(node)):
            return found
    return None


def test_core_imports_form_a_dag() -> None:
    cycle = find_cycle(core_graph())
    assert cycle is None, "core's runtime imports have a cycle: " + " -> ".join(cycle or ())


def test_the_cycle_check_finds_a_cycle() -> None:
    """The check itself: a cycle, a deferred import closing one, and a DAG."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set(), "d": {"a", "c"}}) is None
    graph = core_graph()
    assert "darkroad.core.context" in graph["darkroad.core.engine"]
    graph["darkroad.core.context"] = graph["darkroad.core.context"] | {"darkroad.core.engine"}
    assert find_cycle(graph) is not None


def test_deferred_and_type_checking_imports(tmp_path: Path) -> None:
    """An import inside a function counts; one under ``if TYPE_CHECKING:`` does not."""
    f = tmp_path / "m.py"
    f.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import X\nelse:\n"
                 "    from .b import Y\n\ndef f():\n    from .c import Z\n    import os\n", encoding="utf-8")
    got = {(m, tuple(n)) for _, m, n in runtime_imports(f, "p")}
    assert got == {("typing", ("TYPE_CHECKING",)), ("p.b", ("Y",)), ("p.c", ("Z",)), ("os", ())}


def modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if ".egg-info" not in str(p))


@pytest.mark.parametrize("path", modules(CORE), ids=lambda p: str(p.relative_to(ROOT)))
def test_core_imports_no_service_layer(path: Path) -> None:
    """core imports neither Litestar nor redis, nor the API nor a plugin, nor the learning
    libraries (the environments' extra: ``pip install darkroad`` goes without them)."""
    for line, module, _ in runtime_imports(path, package_of(path)):
        top = module.split(".")[0]
        assert top not in ("litestar", "redis", "uvicorn", "hiredis", *RL_LIBRARIES), f"{path}:{line} imports {module}"
        assert not module.startswith(("darkroad.api", "darkroad.plugins", "darkroad.env")), \
            f"{path}:{line} imports {module}"


RL_LIBRARIES = ("pettingzoo", "gymnasium", "numpy")
"""The ``rl`` extra's libraries: only darkroad.env imports them."""


@pytest.mark.parametrize("path", modules(ENV), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_environments_import_only_the_core(path: Path) -> None:
    """darkroad.env imports of darkroad only ``darkroad.core``'s public API (and its own
    modules): the environments are a client of the rules core, as a plugin is."""
    for line, module, names in runtime_imports(path, package_of(path)):
        if module == "darkroad.core":
            assert set(names) <= PUBLIC, f"{path}:{line} imports {sorted(set(names) - PUBLIC)} from darkroad.core"
        elif module.split(".")[0] == "darkroad":
            assert module.startswith("darkroad.env"), f"{path}:{line} imports {module}"


@pytest.mark.parametrize("path", [*modules(API), *modules(PLUGINS)], ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_else_imports_the_learning_libraries(path: Path) -> None:
    for line, module, _ in runtime_imports(path, package_of(path) if not str(path).count("/examples/") else None):
        assert module.split(".")[0] not in RL_LIBRARIES and not module.startswith("darkroad.env"), \
            f"{path}:{line} imports {module}"


PUBLIC = set(darkroad.core.__all__)
TESTING = set(darkroad.testing.__all__)
KITS = {f"darkroad.plugins.{kind}.kit" for kind in ("buildings", "companions", "deeds", "bots")}
"""The public kits of the component kinds (what the modules of a kind share), a plugin's to import."""
COMPONENT_KINDS = {f"darkroad.plugins.{kind}" for kind in ("buildings", "companions", "deeds", "steeds", "upgrades",
                                                             "bots")}
"""Packages of one-module components: each module a template a fan copies, so no relative import."""


def plugin_import_problems(path: Path, package: str | None, is_test: bool) -> list[str]:
    """What ``path`` (a plugin module, or a plugin's test) imports from darkroad beyond the
    public API and the kits; a component module of the base game (``package`` one of
    :data:`COMPONENT_KINDS`) imports nothing relatively (its copy must work in another package)."""
    out = []
    for line, module, names in runtime_imports(path, package):
        where = f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{line}"
        if package in COMPONENT_KINDS and module.startswith(package) and relative_at(path, line):
            out.append(f"{where} imports {module} relatively: import the kit as {package}.kit, "
                       "so that a copy of the module works in a fan's package")
        elif module == "darkroad.core":
            private = sorted(set(names) - PUBLIC)
            if private:
                out.append(f"{where} imports {private} from darkroad.core, which does not export them")
        elif module == "darkroad.testing" and is_test:
            private = sorted(set(names) - TESTING)
            if private:
                out.append(f"{where} imports {private} from darkroad.testing, which does not export them")
        elif module in KITS:
            continue
        elif f"{module}.kit" in KITS and names == ["kit"]:
            continue  # from darkroad.plugins.deeds import kit
        elif package and package not in COMPONENT_KINDS and (module == package or module.startswith(package + ".")):
            continue  # a plugin package's own modules (the Private Concern's, a fan pack's)
        elif module.split(".")[0] == "darkroad":
            out.append(f"{where} imports {module}: a plugin imports only darkroad.core and the kits "
                       f"({', '.join(sorted(KITS))})" + (" and darkroad.testing" if is_test else ""))
    return out


def relative_at(path: Path, line: int) -> bool:
    """Whether an import on ``line`` of ``path`` is relative (``from . import x``)."""
    return any(isinstance(n, ast.ImportFrom) and n.level and n.lineno == line
               for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))))


def plugin_modules() -> list[tuple[Path, str | None, bool]]:
    """Every module under plugins/: the base game's (package darkroad.plugins.*) and the
    example fan packs' (their own packages; their tests import darkroad.testing)."""
    out: list[tuple[Path, str | None, bool]] = []
    for path in modules(PLUGINS):
        rel = path.relative_to(PLUGINS)
        if rel.parts[0] == "examples":
            is_test = "tests" in rel.parts
            src = rel.parts.index("src") if "src" in rel.parts else None
            package = ".".join(rel.parts[src + 1:-1]) if src is not None else None
            out.append((path, package, is_test))
        else:
            out.append((path, package_of(path), False))
    return out


@pytest.mark.parametrize(("path", "package", "is_test"), plugin_modules(),
                         ids=lambda v: str(v.relative_to(PLUGINS)) if isinstance(v, Path) else "")
def test_plugins_import_only_the_public_api(path: Path, package: str | None, is_test: bool) -> None:
    assert plugin_import_problems(path, package, is_test) == []


def test_the_plugin_import_check_sees_a_private_import(tmp_path: Path) -> None:
    """Core internals, names core does not export, the API, another plugin's module, a kit's
    private module and, in a base-game component module, any relative import are refused;
    the public kits, imported absolutely, are not."""
    f = tmp_path / "fan.py"
    lines = [
        "from darkroad.core import Ctx, hookimpl",  # 1 fine
        "from darkroad.core.rulebook.plan import move_illuminated",  # 2 a core internal
        "from darkroad.core import MARKET_VALUES",  # 3 not exported
        "from darkroad.api import app",  # 4 the API
        "from darkroad.plugins.deeds import collector",  # 5 another plugin
        "from darkroad.testing import Table",  # 6 only in tests
        "from . import kit",  # 7 relative: a copy would not find it
        "from .kit import SpendToGain",  # 8 relative
        "from darkroad.plugins.deeds import kit, collector",  # 9 the kit, and another plugin
        "from darkroad.plugins.deeds import _base",  # 10 no such kit
        "from darkroad.plugins.deeds.kit import Deed, good_types",  # fine from here on
        "from darkroad.plugins.buildings import kit",
        "import darkroad.plugins.companions.kit",
    ]
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = plugin_import_problems(f, "darkroad.plugins.buildings", False)
    assert [int(p.split(":")[1].split()[0]) for p in problems] == list(range(2, 11)), problems
    assert "relatively" in problems[5] and "relatively" in problems[6]
    # A test may import darkroad.testing; a fan package imports its own modules relatively.
    assert [int(p.split(":")[1].split()[0]) for p in plugin_import_problems(f, "darkroad.plugins.buildings", True)] \
        == [2, 3, 4, 5, 7, 8, 9, 10]
    assert [int(p.split(":")[1].split()[0]) for p in plugin_import_problems(f, "fan_pack", False)] \
        == [2, 3, 4, 5, 6, 9, 10]


def test_every_base_game_component_module_imports_its_kit_absolutely() -> None:
    """The modules of each kind with a kit import it as ``darkroad.plugins.<kind>.kit``."""
    for kit in KITS:
        folder = PLUGINS / kit.split(".")[2]
        users = [p.name for p in modules(folder)
                 if any(m == kit or (f"{m}.kit" == kit and n == ["kit"]) for _, m, n in runtime_imports(p, kit[:-4]))]
        # A kit is what several modules share: the base game's bots are fewer than its buildings.
        assert len(users) >= (2 if kit.endswith(".bots.kit") else 5), (kit, users)


def test_every_public_name_exists() -> None:
    missing = [n for n in darkroad.core.__all__ if not hasattr(darkroad.core, n)]
    assert missing == []


@pytest.mark.parametrize("path", modules(API), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_api_never_imports_a_plugin(path: Path) -> None:
    """Plugins reach the API through the entry points only."""
    for line, module, _ in runtime_imports(path, package_of(path)):
        assert not module.startswith("darkroad.plugins"), f"{path}:{line} imports {module}"


# -- the API's own layers: HTTP -> application -> store ---------------------------------------

HTTP_VOCABULARY = ("litestar", "uvicorn", "httptools", "starlette", "httpx")
"""The HTTP libraries only the edge imports."""
API_LAYERS = {
    "http": set(),  # the edge may import every layer below it (and wires the app together)
    "app": {"darkroad.api.http", "darkroad.api.tools", "darkroad.api.cli"},
    "store": {"darkroad.api.http", "darkroad.api.app", "darkroad.api.tools", "darkroad.api.cli"},
    "tools": {"darkroad.api.http", "darkroad.api.app", "darkroad.api.store", "darkroad.api.cli"},
}
"""Each subpackage of ``api/`` and the packages it must not import: the edge sits on the
application, the application on the store; the developer tools beside them use the engine only."""


def api_layer_problems(path: Path, layer: str) -> list[str]:
    """What ``path`` (a module of the ``layer`` subpackage of ``api/``) imports across the layers."""
    problems = []
    forbidden = tuple(API_LAYERS[layer])
    for line, module, _ in runtime_imports(path, f"darkroad.api.{layer}"):
        if module.startswith(forbidden) or (layer != "http" and module.split(".")[0] in HTTP_VOCABULARY):
            problems.append(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{line} imports {module}")
    return problems


def test_every_api_module_is_in_a_layer() -> None:
    """``api/`` is its subpackages, plus the CLI and what every layer shares (settings, metrics)."""
    loose = sorted(p.name for p in API.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "cli.py", "metrics.py", "settings.py"]
    assert {p.name for p in API.iterdir() if (p / "__init__.py").exists()} == set(API_LAYERS)


@pytest.mark.parametrize(
    ("path", "layer"),
    [(p, p.relative_to(API).parts[0]) for p in modules(API) if len(p.relative_to(API).parts) > 1],
    ids=lambda v: str(v.relative_to(ROOT)) if isinstance(v, Path) else v,
)
def test_the_api_layers(path: Path, layer: str) -> None:
    assert api_layer_problems(path, layer) == []


@pytest.mark.parametrize("shared", ["settings.py", "metrics.py"])
def test_what_every_layer_shares_imports_no_layer(shared: str) -> None:
    for line, module, _ in runtime_imports(API / shared, "darkroad.api"):
        assert not module.startswith(("darkroad.api.", "litestar")), f"{shared}:{line} imports {module}"


def test_the_api_layer_check_sees_a_crossing(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text("from litestar import Request\nfrom darkroad.api.http.problems import Problem\n"
                 "from darkroad.api.store.base import StoredGame\nfrom darkroad.core import Engine\n", encoding="utf-8")
    assert [p.rsplit(":", 1)[1].split()[0] for p in api_layer_problems(f, "app")] == ["1", "2"]
    assert [p.rsplit(":", 1)[1].split()[0] for p in api_layer_problems(f, "store")] == ["1", "2"]
    assert api_layer_problems(f, "http") == []


# -- size fences: core/, plugins/ and api/ ----------------------------------------------------------

MAX_MODULE_LINES, MAX_CLASS_LINES, MAX_FUNCTION_LINES = 600, 400, 60


def over_fences(path: Path, name: str = "") -> dict[str, int]:
    """``path``'s module, classes and functions (``name::Class.method``; ``name``: the path from
    the repository's root) longer than their fences, with their lengths in lines (a definition
    from its ``def`` or ``class`` line to its last)."""
    source = path.read_text(encoding="utf-8")
    name = name or str(path.relative_to(ROOT))
    out = {name: source.count("\n")} if source.count("\n") > MAX_MODULE_LINES else {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                qualified = f"{prefix}{child.name}"
                length = (child.end_lineno or child.lineno) - child.lineno + 1
                fence = MAX_CLASS_LINES if isinstance(child, ast.ClassDef) else MAX_FUNCTION_LINES
                if length > fence:
                    out[f"{name}::{qualified}"] = length
                visit(child, qualified + ".")

    visit(ast.parse(source), "")
    return out


def test_no_module_class_or_function_of_core_plugins_or_env_is_over_its_fence() -> None:
    """No module over 600 lines, no class over 400, no function over 60, in core/, plugins/
    (the example fan packs included) and env/."""
    assert {k: n for path in modules(CORE) + modules(PLUGINS) + modules(ENV) for k, n in over_fences(path).items()} == {}


def test_the_fences_see_a_long_function_class_and_module(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    body = "\n".join(f"        x{i} = {i}" for i in range(60))
    f.write_text(f"class C:\n    def long(self):\n{body}\n\n    def short(self):\n        pass\n" + "\n" * 600,
                 encoding="utf-8")
    assert over_fences(f, "m.py") == {"m.py": 665, "m.py::C.long": 61}


def test_no_module_class_or_function_of_the_api_is_over_its_fence() -> None:
    """The same fences in api/ (issue 39: each module does one job)."""
    assert {k: n for path in modules(API) for k, n in over_fences(path).items()} == {}


# -- tests/api mirrors the API's layers ----------------------------------------------------------

API_TESTS = ROOT / "tests" / "api"
MIRRORED = ("http", "app", "store")
"""The folders of ``tests/api``, each testing the layer of ``api/`` it is named after."""
TOP_LEVEL_API_TESTS = {
    "test_api_cli.py": "api/cli.py, the command line beside the layers",
    "test_api_deploy.py": "deploy/: the container image and its files",
    "test_api_nginx.py": "deploy/nginx.conf, with a real nginx",
}
"""The test modules of ``tests/api`` that test none of its layers, each with what it tests."""


def api_test_problems(folder: Path) -> list[str]:
    """Where the test modules of ``folder`` (a ``tests/api``) break its mirror of the layers: a
    module outside ``http/``, ``app/`` and ``store/`` (but :data:`TOP_LEVEL_API_TESTS`), one not
    named ``test_api_*``, or one in ``app/`` that imports no ``darkroad.api`` (a core test)."""
    problems = []
    for path in sorted(folder.rglob("test_*.py")):
        parts = path.relative_to(folder).parts
        where = "/".join(parts)
        if parts[0] not in MIRRORED and where not in TOP_LEVEL_API_TESTS:
            problems.append(f"{where}: in none of {', '.join(f'{p}/' for p in MIRRORED)}")
        elif len(parts) > 2:
            problems.append(f"{where}: in a subfolder of {parts[0]}/")
        if not parts[-1].startswith("test_api_"):
            problems.append(f"{where}: not named test_api_*")
        if parts[0] == "app" and not any(m.startswith("darkroad.api") for _, m, _ in runtime_imports(path)):
            problems.append(f"{where}: imports no darkroad.api (a test of the core belongs in tests/)")
    return problems


def test_tests_api_mirrors_the_layers() -> None:
    """``tests/api`` mirrors ``api/``'s ``http/``, ``app/`` and ``store/`` (issue 39), so the
    tests of a module are found beside those of its layer."""
    assert {p.name for p in API_TESTS.iterdir() if p.is_dir() and list(p.glob("test_*.py"))} == set(MIRRORED)
    assert api_test_problems(API_TESTS) == []


def test_the_mirror_check_sees_a_stray(tmp_path: Path) -> None:
    files = {"test_api_cli.py": "", "test_api_loose.py": "", "app/test_api_core.py": "from darkroad.core import Game\n",
             "app/test_api_ok.py": "from darkroad.api.app.lobby import Lobby\n", "http/test_play.py": "",
             "store/deep/test_api_x.py": ""}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert api_test_problems(tmp_path) == [
        "app/test_api_core.py: imports no darkroad.api (a test of the core belongs in tests/)",
        "http/test_play.py: not named test_api_*",
        "store/deep/test_api_x.py: in a subfolder of store/",
        "test_api_loose.py: in none of http/, app/, store/",
    ]

# -- module names ---------------------------------------------------------------------------------

SHARED_NAMES = {
    "kit.py": "each component kind's public kit, ``darkroad.plugins.<kind>.kit`` (bots, buildings, "
              "companions, deeds): the one module a plugin of that kind imports, named by its package",
}
"""File names more than one module of the layers may have, each with its reason (``__init__.py``
and ``__main__.py`` are Python's own)."""


def repeated_names(folders: list[Path]) -> dict[str, list[str]]:
    """File name -> the modules of ``folders`` that have it, for the names more than one has
    (Python's ``__init__.py`` and ``__main__.py`` and :data:`SHARED_NAMES` apart)."""
    found: dict[str, list[str]] = {}
    for folder in folders:
        for path in modules(folder):
            if path.name not in ("__init__.py", "__main__.py") and path.name not in SHARED_NAMES:
                found.setdefault(path.name, []).append(str(path.relative_to(folder.parent)))
    return {name: paths for name, paths in found.items() if len(paths) > 1}


def test_no_two_modules_of_the_layers_share_a_name() -> None:
    """A module's name says what it holds, once across core/, plugins/, api/ and env/ (issue 39):
    a reader, a traceback or a grep finds one ``hooks.py``."""
    assert repeated_names([CORE, PLUGINS, API, ENV]) == {}


def test_the_name_check_sees_a_repeated_name(tmp_path: Path) -> None:
    for path in ("a/x/turn.py", "b/turn.py", "a/__init__.py", "b/__init__.py", "a/kit.py", "b/kit.py", "b/y.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("", encoding="utf-8")
    assert repeated_names([tmp_path / "a", tmp_path / "b"]) == {"turn.py": ["a/x/turn.py", "b/turn.py"]}
    assert set(SHARED_NAMES) == {"kit.py"} and sorted(p.parent.name for p in PLUGINS.glob("*/kit.py")) == \
        ["bots", "buildings", "companions", "deeds"]
