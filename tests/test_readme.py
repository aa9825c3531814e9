"""The README's Python example runs as written, and does what its comments say."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"

RUN = """
import ast, json, sys

# The block as written, statement by statement, in a fresh process: each expression's value
# kept (what an interactive session would show).
tree = ast.parse(sys.stdin.read(), "README.md")
ns, shown = {}, []
for node in tree.body:
    if isinstance(node, ast.Expr):
        shown.append(eval(compile(ast.Expression(node.value), "README.md", "eval"), ns))
    else:
        exec(compile(ast.Module([node], []), "README.md", "exec"), ns)
decision, view, replayed = shown
engine, game, seat, actions = ns["engine"], ns["game"], ns["seat"], ns["actions"]
print(json.dumps({
    "decision": [decision["type"], decision["seats"], bool(decision["prompt"])],
    "seat": seat, "legal": all(a.seat == seat and a.label for a in actions), "version": game.version,
    "view": [view["seat"], len(view["players"])],
    "replayed": replayed == game, "reloaded": engine.loads(ns["blob"]) == game, "packed": type(ns["blob"]).__name__,
}))
"""


def test_the_readme_python_example_runs_as_written() -> None:
    [block] = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S)
    done = subprocess.run([sys.executable, "-c", RUN], input=block, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "decision": ["plan", [0], True], "seat": 0, "legal": True, "version": 1, "view": [0, 3],
        "replayed": True, "reloaded": True, "packed": "bytes",
    }
