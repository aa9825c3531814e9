"""Sizes of core/ and plugins/ read from the source: lines, classes and functions, Engine's
lines and methods, the biggest of each, and what is over the fences of ``tests/test_layers.py``
(a module over 600 lines, a class over 400, a function over 60).

    python scripts/sizes.py [TREE ...]

``TREE`` is a checkout or an install (``pip install --target``; its packages under
``darkroad/``) of any commit, the repository's root by default: compare two with
``git archive <commit> | tar -x -C DIR`` and ``python scripts/sizes.py DIR .``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

FENCES = {"module": 600, "class": 400, "function": 60}
"""The fences of tests/test_layers.py."""


def folder(tree: Path, name: str) -> Path:
    """``name`` (``core`` or ``plugins``) in a checkout or in an install."""
    return tree / name if (tree / name).is_dir() else tree / "darkroad" / name


def measure(tree: Path) -> list[str]:
    """The lines of the report on ``tree``."""
    modules: list[tuple[int, str]] = []
    classes: list[tuple[int, str]] = []
    functions: list[tuple[int, str]] = []
    engine = ""
    for top in ("core", "plugins"):
        base = folder(tree, top)
        for path in sorted(base.rglob("*.py")):
            rel = str(path.relative_to(base.parent))
            if "/examples/" in rel:
                continue  # the example fan packs are packages of their own
            source = path.read_text(encoding="utf-8")
            modules.append((source.count("\n"), rel))
            for node in ast.walk(ast.parse(source)):
                if not isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if isinstance(node, ast.ClassDef):
                    classes.append((length, f"{rel}:{node.name}"))
                    if rel == "core/engine.py" and node.name == "Engine":
                        methods = [b for b in node.body if isinstance(b, ast.FunctionDef | ast.AsyncFunctionDef)]
                        engine = f"Engine: {length} lines, {len(methods)} methods (core/engine.py {source.count(chr(10))} lines)"
                else:
                    functions.append((length, f"{rel}:{node.name}"))
    out = [f"{tree}", f"  {engine}",
           f"  core+plugins: {len(modules)} modules, {sum(n for n, _ in modules)} lines, "
           f"{len(classes)} classes, {len(functions)} functions"]
    for kind, kinds, found in (("module", "modules", modules), ("class", "classes", classes),
                               ("function", "functions", functions)):
        over = [f"{name} {n}" for n, name in sorted(found, reverse=True) if n > FENCES[kind]]
        biggest = ", ".join(f"{name} {n}" for n, name in sorted(found, reverse=True)[:6])
        out.append(f"  biggest {kinds}: {biggest}")
        out.append(f"  {kinds} over {FENCES[kind]} lines: {len(over)}{': ' + ', '.join(over) if over else ''}")
    return out


def main() -> None:
    trees = [Path(arg) for arg in sys.argv[1:]] or [Path(__file__).resolve().parent.parent]
    for tree in trees:
        print("\n".join(measure(tree)))


if __name__ == "__main__":
    main()
