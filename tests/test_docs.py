"""``docs/plugins.md`` keeps in step with ``core/hookspecs.py`` (issues 3 and 5).

The hook reference documents every hookspec, in the specs' order, under a
``### darkroad_<name>`` heading whose first ``python`` block gives the spec's exact
signature, followed by when it fires, its arguments, its return, whether it is
firstresult, and an example implementation. No heading documents a hook that does not
exist. The ``Ctx`` and effect-language sections name every operation and effect.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable
from pathlib import Path

import pytest

import darkroad.core
from darkroad.core import Ctx, hookspecs
from darkroad.core.hookspecs import spec_names
from darkroad.core.rulebook.effects import CONCRETE

DOC = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"
HOOK_HEADING = re.compile(r"^### (darkroad_\w+)\s*$", re.M)
HEADING = re.compile(r"^#{1,3} ", re.M)
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)
FIRSTRESULT = re.compile(r"firstresult:?(?:\*\*)?:?\s*(yes|no)\b", re.I)


def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    """The text under ``heading`` (a whole heading line) up to the next heading of the same
    or a higher level."""
    level = len(heading) - len(heading.lstrip("#"))
    start = text.index(heading + "\n") + len(heading) + 1
    nxt = re.compile(rf"^#{{1,{level}}} ", re.M).search(text, start)
    return text[start:nxt.start() if nxt else len(text)]


def hook_sections(text: str) -> dict[str, str]:
    """``### darkroad_<name>`` heading -> its text (up to the next heading)."""
    out = {}
    for m in HOOK_HEADING.finditer(text):
        nxt = HEADING.search(text, m.end())
        out[m.group(1)] = text[m.end():nxt.start() if nxt else len(text)]
    return out


def signature_text(block: str) -> str:
    """The first ``def`` of a code block, with its continuation lines (up to the colon or
    the end of the signature)."""
    lines = block.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def "))
    text, depth = "", 0
    for line in lines[start:]:
        text += " " + line.strip()
        depth += line.count("(") - line.count(")")
        if depth <= 0:
            break
    return text.strip()


def normalise(signature: str) -> str:
    """A ``def`` line (with or without its colon or body) as ``ast.unparse`` writes it:
    whitespace, quotes and trailing ``: ...`` do not matter."""
    head = signature.strip()
    for tail in ("...", ":"):
        head = head.removesuffix(tail).rstrip()
    fn = ast.parse(head + ": ...").body[0]
    assert isinstance(fn, ast.FunctionDef)
    fn.decorator_list = []
    return ast.unparse(fn).splitlines()[0]


def annotation(a: object) -> str:
    # Under ``from __future__ import annotations`` the specs' annotations are strings.
    return a if isinstance(a, str) else inspect.formatannotation(a)


def spec_signature(name: str) -> str:
    """The hookspec's signature as a ``def`` line."""
    sig = inspect.signature(getattr(hookspecs, name))
    params = []
    for p in sig.parameters.values():
        text = p.name
        if p.annotation is not inspect.Parameter.empty:
            text += f": {annotation(p.annotation)}"
        if p.default is not inspect.Parameter.empty:
            text += f" = {p.default!r}"
        params.append(text)
    ret = "" if sig.return_annotation is inspect.Signature.empty else f" -> {annotation(sig.return_annotation)}"
    return normalise(f"def {name}({', '.join(params)}){ret}")


def spec_args(name: str) -> list[str]:
    return list(inspect.signature(getattr(hookspecs, name)).parameters)


def is_firstresult(name: str) -> bool:
    return bool(getattr(getattr(hookspecs, name), "darkroad_spec", {}).get("firstresult"))


# -- the reference and the specs ------------------------------------------------------------------


def test_every_hookspec_is_documented() -> None:
    missing = [n for n in spec_names() if n not in hook_sections(doc())]
    assert missing == [], f"hookspecs without a '### <name>' section in {DOC.name}"


def test_only_existing_hooks_are_documented() -> None:
    documented = HOOK_HEADING.findall(doc())
    unknown = [n for n in documented if n not in spec_names()]
    assert unknown == [], f"{DOC.name} documents hooks that do not exist in core/hookspecs.py"
    assert len(documented) == len(set(documented)), "a hook is documented twice"


def test_hooks_are_documented_in_the_specs_order_under_the_hook_reference() -> None:
    text = doc()
    assert "\n## Hook reference\n" in text
    reference = section(text, "## Hook reference")
    assert HOOK_HEADING.findall(reference) == spec_names()
    assert HOOK_HEADING.findall(text) == HOOK_HEADING.findall(reference)


@pytest.mark.parametrize("name", spec_names())
def test_documented_signature_is_the_specs(name: str) -> None:
    body = hook_sections(doc()).get(name)
    if body is None:
        pytest.fail(f"{name} is not documented")
    blocks = PYTHON_BLOCK.findall(body)
    assert blocks, f"{name}: no ```python block with its signature"
    assert normalise(signature_text(blocks[0])) == spec_signature(name)


@pytest.mark.parametrize("name", spec_names())
def test_documented_hook_has_every_part(name: str) -> None:
    """When it fires, arguments, returns, firstresult (matching the spec), an example."""
    body = hook_sections(doc()).get(name)
    if body is None:
        pytest.fail(f"{name} is not documented")
    for part in ("When it fires", "Arguments", "Returns"):
        assert part in body, f"{name}: no '{part}'"
    said = FIRSTRESULT.search(body)
    assert said, f"{name}: no 'firstresult: yes/no'"
    assert (said.group(1).lower() == "yes") == is_firstresult(name), f"{name}: firstresult is wrong"
    examples = PYTHON_BLOCK.findall(body)[1:]
    assert examples, f"{name}: no example implementation"
    impls = [fn for block in examples for fn in ast.walk(ast.parse(block))
             if isinstance(fn, ast.FunctionDef) and fn.name == name]
    assert impls, f"{name}: the example does not implement the hook"
    for fn in impls:
        assert any(ast.unparse(d) == "hookimpl" for d in fn.decorator_list), f"{name}: example without @hookimpl"
        # pluggy accepts an implementation taking any subset of the spec's arguments.
        args = [a.arg for a in fn.args.args]
        assert set(args) <= set(spec_args(name)), f"{name}: the example takes arguments the hook does not pass"


def test_every_python_block_parses() -> None:
    for block in PYTHON_BLOCK.findall(doc()):
        first = block.lstrip().splitlines()[0]
        if first.startswith("def ") and not first.rstrip().endswith((":", "...")):
            block = block.rstrip() + ": ..."  # a bare signature
        ast.parse(block)


def test_the_signature_check_sees_a_difference() -> None:
    """The comparison normalises layout, not meaning."""
    spec = spec_signature("darkroad_bazaar_discount")
    assert normalise("def darkroad_bazaar_discount(ctx:Ctx,  seat: int)->int|None:") == spec
    assert normalise("def darkroad_bazaar_discount(ctx: 'Ctx', seat: 'int') -> 'int | None'") != spec
    assert normalise("def darkroad_bazaar_discount(ctx: Ctx, seat: int) -> int") != spec
    assert normalise("def darkroad_bazaar_discount(ctx: Ctx) -> int | None") != spec
    assert signature_text("@hookimpl\ndef f(\n    a: int,\n    b: str,\n) -> None:\n    pass") == \
        "def f( a: int, b: str, ) -> None:"


# -- Ctx, steps, effects -------------------------------------------------------------------------------


def test_every_ctx_operation_is_documented() -> None:
    text = section(doc(), "## The `Ctx` object")
    public = sorted(n for n, v in vars(Ctx).items() if callable(v) and not n.startswith("_"))
    missing = [n for n in public if f"ctx.{n}(" not in text]
    assert missing == [], "Ctx operations missing from the 'The `Ctx` object' section"


def test_every_ctx_operation_has_a_docstring() -> None:
    """``Ctx`` is the plugin author's main API: each public method says what it does."""
    assert Ctx.__doc__
    public = sorted(n for n, v in vars(Ctx).items() if callable(v) and not n.startswith("_"))
    assert [n for n in public if not inspect.getdoc(getattr(Ctx, n))] == []


def test_every_public_name_is_documented() -> None:
    """The names ``darkroad.core`` exports, and only those, are listed for plugin authors."""
    text = section(doc(), "## What a plugin imports")
    listed = set(re.findall(r"^\| (.*?) \|", text, re.M)) - {"Name", "---"}
    names = {m for cell in listed for m in re.findall(r"`(\w+)", cell)}
    assert names == set(darkroad.core.__all__)


def test_steps_and_decisions_are_documented() -> None:
    text = section(doc(), "## Steps and decisions")
    for word in ("Step", "Choice", "Task", "ctx.push(", "options(", "choose(", "run(", "seats("):
        assert word in text, word


def test_every_effect_is_documented() -> None:
    text = section(doc(), "## The effect language")
    assert "core/rulebook/effects.py" in text
    missing = [verb for verb in CONCRETE if not re.search(rf"`{re.escape(verb)}[:`\[]", text)]
    assert missing == [], "effects missing from 'The effect language'"


def _outside(text: str) -> bool:
    """Whether ``text`` names the rules digest or a file of the shared folder beside the repository."""
    return "RULES" + ".md" in text or re.search(r"\bshared/(?:seeds/|DESIGN|CONVENTIONS)", text) is not None


def test_no_reference_outside_the_repository() -> None:
    """Repo docs and code cite the rulebook (and docs/content.md for the project's own
    content decisions), never a digest or a file that is not in the repository."""
    root = DOC.parent.parent
    found = [str(p.relative_to(root)) for folder in ("core", "plugins", "api", "docs", "tests", "scripts", "deploy")
             for p in (root / folder).rglob("*") if p.suffix in (".py", ".md", ".toml", ".json", ".txt")
             and _outside(p.read_text(encoding="utf-8", errors="replace"))]
    found += [name for name in ("README.md",) if _outside((root / name).read_text(encoding="utf-8"))]
    assert found == []


def test_the_companion_tutorial_works(monkeypatch: pytest.MonkeyPatch, add_entry_point: Callable[[str, str], None]) -> None:
    """The companion tutorial's module, installed under its entry point, passes the
    tutorial's own tests, exactly as written."""
    import sys
    import types

    text = section(doc(), "## Tutorial: a fan companion, end to end")
    blocks = PYTHON_BLOCK.findall(text)
    [module_code] = [b for b in blocks if 'ID = "glow_moth"' in b]
    [test_code] = [b for b in blocks if "from darkroad.testing import Table" in b]
    module = types.ModuleType("darkroad_glow_moth.glow_moth")
    exec(compile(module_code, "glow_moth.py", "exec"), module.__dict__)
    monkeypatch.setitem(sys.modules, "darkroad_glow_moth.glow_moth", module)
    add_entry_point("glow-moth", "darkroad_glow_moth.glow_moth")
    tests: dict[str, object] = {}
    exec(compile(test_code, "test_glow_moth.py", "exec"), tests)
    ran = [name for name in tests if name.startswith("test_")]
    assert ran == ["test_the_moth_gives_two_coins_once", "test_a_complete_game_with_the_moth"]
    for name in ran:
        tests[name]()  # type: ignore[operator]
