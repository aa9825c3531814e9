"""Where each tree's server spends its CPU time an action, by Python function, from the py-spy
samples of ``benchmarks/side_by_side.py --spy DIR``.

    python benchmarks/spy_report.py DIR [--top 30] [--inclusive] [--grep TEXT]

Each file ``DIR/NAME-ROUND.txt`` (collapsed stacks, a count last) comes with ``NAME-ROUND.json``:
the actions its round measured and the server's CPU time an action (``side_by_side.py``'s ``cpu
us``). py-spy, beside the client and Redis on the other core, keeps up with only part of its
rate, so a function's figure is its share of the tree's samples times that CPU time, in
microseconds an action (as ``benchmarks/load_profile.py`` reads its parts), the rounds weighed by
their actions. A function's own time (the default) counts the samples whose innermost Python
frame it is: the C functions it calls (msgspec, hashing, regular expressions, the event loop's C
parts) are in it. ``--inclusive``: the samples with the function anywhere in their stack (a
coroutine resumed by the event loop is the root of its stack, so a handler's inclusive time
covers only what runs under its own frames).

Frames are named ``function (path)``, the path from the package (``api/...``, ``core/...``)
whether the tree is a checkout or an installation (``darkroad/...``), so that two trees'
functions line up; those that differ most between the first tree and the last come first. py-spy
samples without pausing the server (``--nonblocking``), so a few stacks are torn: rank with it,
measure with ``side_by_side.py``'s CPU an action. ``benchmarks/load_profile.py --parts-only FILE``
reads the same files by part of the serving path.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

_FRAME = re.compile(r"\s*\((?:.*?site-packages/|.*?/lib/python3\.\d+/)?(?:darkroad/)?(.*?):\d+\)")
"""A frame's location, its line left out and its path cut to the package's."""


def load(folder: Path, inclusive: bool) -> dict[str, dict[str, float]]:
    """Each tree (``NAME``) -> its functions' microseconds an action."""
    trees: dict[str, dict[str, float]] = {}
    actions: Counter[str] = Counter()
    for path in sorted(folder.glob("*.txt")):
        tree = path.stem.rsplit("-", 1)[0]  # "this-tree-1" -> "this-tree"
        side = json.loads(path.with_suffix(".json").read_text())
        samples: Counter[str] = Counter()
        for line in path.read_text().splitlines():
            stack, _, n = line.rpartition(" ")
            if not stack or not n.isdigit():
                continue
            frames = [_FRAME.sub(lambda m: f" ({m.group(1)})", frame) for frame in stack.split(";")]
            samples["(all)"] += int(n)
            for frame in set(frames) if inclusive else frames[-1:]:
                samples[frame] += int(n)
        scale = side["cpu_us"] * side["actions"] / max(samples["(all)"], 1)  # us of a sample, times actions
        figures = trees.setdefault(tree, {})
        for frame, count in samples.items():
            figures[frame] = figures.get(frame, 0.0) + count * scale
        actions[tree] += side["actions"]
    return {tree: {f: v / actions[tree] for f, v in figures.items()} for tree, figures in trees.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="side_by_side.py --spy's folder")
    parser.add_argument("--top", type=int, default=30, help="functions shown")
    parser.add_argument("--inclusive", action="store_true", help="a function's samples with what it calls")
    parser.add_argument("--grep", default="", help="only the functions whose frame has this text")
    args = parser.parse_args()
    trees = load(args.folder, args.inclusive)
    if not trees:
        parser.error(f"no samples in {args.folder}")
    names = sorted(trees)
    first, last = trees[names[0]], trees[names[-1]]
    print("  ".join(f"{name[:12]:>12s}" for name in names) + "     diff  function (us an action)")
    print("  ".join(f"{trees[name]['(all)']:12.2f}" for name in names) + "             (all)")
    functions = {f for figures in trees.values() for f in figures if args.grep in f and f != "(all)"}
    for f in sorted(functions, key=lambda f: -abs(first.get(f, 0.0) - last.get(f, 0.0)))[: args.top]:
        figures = "  ".join(f"{trees[name].get(f, 0.0):12.2f}" for name in names)
        print(f"{figures}  {first.get(f, 0.0) - last.get(f, 0.0):+8.2f}  {f[:120]}")


if __name__ == "__main__":
    main()
