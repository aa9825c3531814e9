"""``Memo``: the bounded table of the hot paths."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from darkroad.core.memo import Memo


def test_a_memo_starts_again_when_full_and_keeps_what_it_is_given() -> None:
    memo: Memo[str, int] = Memo(3)
    assert [memo.keep(k, n) for n, k in enumerate("abc")] == [0, 1, 2]
    assert dict(memo) == {"a": 0, "b": 1, "c": 2} and memo.get("b") == 1
    assert memo.keep("d", 3) == 3
    assert dict(memo) == {"d": 3}  # full: emptied before the new key
    assert memo.keep("d", 4) == 4 and len(memo) == 1


ROOT = Path(__file__).resolve().parents[1]
MEASURED = re.compile(r"[Ss]aves [\d.]+%.*benchmarks/\w+\.py", re.S)


def remembered(path: Path) -> Iterator[tuple[str, str]]:
    """``(where, docstring)`` of each table ``path`` keeps by key: a function cached by
    ``functools`` that takes arguments (one without any is a constant of the process), and a
    ``Memo`` made in an assignment (its docstring: the string under it)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.args.args and any(
                "cache" in ast.unparse(d) for d in node.decorator_list):
            yield f"{path.name}:{node.lineno}", ast.get_docstring(node) or ""
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for stmt, after in zip(body, [*body[1:], None], strict=True):
            if isinstance(stmt, ast.Assign | ast.AnnAssign) and isinstance(stmt.value, ast.Call) \
                    and ast.unparse(stmt.value.func) == "Memo":
                said = after.value.value if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) else ""
                yield f"{path.name}:{stmt.lineno}", str(said)


def test_every_table_the_core_keeps_gives_its_measured_share() -> None:
    """What the core and the plugins remember stays only with a measured gain: its docstring
    says what share of which workload it saves, and the benchmark command that measured it
    (docs/performance.md, "What the core remembers")."""
    tables = dict(kept for folder in ("core", "plugins") for path in sorted((ROOT / folder).rglob("*.py"))
                  for kept in remembered(path))
    assert len(tables) >= 3  # storage._board, Packer._setups, Packer.shown
    assert [where for where, doc in tables.items() if not MEASURED.search(doc)] == []


def test_the_share_check_sees_a_table_without_one(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text('import functools\n@functools.lru_cache\ndef f(x):\n    """Kept."""\n\n@functools.cache\n'
                 'def constant():\n    return 1\n\nclass C:\n    def __init__(self):\n        self.t = Memo(9)\n'
                 '        """Saves 4.0% of engine (benchmarks/instructions.py --without t)."""\n', encoding="utf-8")
    assert [(where, bool(MEASURED.search(doc))) for where, doc in remembered(f)] == [("m.py:3", False), ("m.py:12", True)]
