"""The corpus of recorded games: seeded games of mixed configurations, their action lists
and a digest of how they ended, replayed by ``tests/test_recorded_games.py``.

A refactor that must not change the rules (moving a component into a plugin, a faster
code path) must replay every recorded game identically: every recorded action still
legal, the same events, the same final state, the same scores and winners. A rule fix
changes some games; then re-record (``scripts/record_games.py``) and say in the commit
how many games changed (``scripts/record_games.py --compare``).

The file (``tests/data/recorded_games.json.gz``) holds, per game: ``config`` (a
``GameConfig`` as JSON, without ``plugins``), ``policy`` (who chose the actions: a
seeded random player or the greedy bot, per seat; only needed to re-record),
``actions`` (``[type, seat, option]`` triples, in order) and ``final``:

``version``, ``round``   the game's version and round at the end;
``events``               how many events the game emitted, and ``events_sha256``: the
                         SHA-256 of all of them (create and every action, each encoded
                         as the API sends it, one per line): the observable behaviour;
``state_sha256``         the SHA-256 of the final serialised state (``Engine.dumps``, keys
                         sorted);
``winners``, ``scores``  the seats that won and every seat's score line.

A change of the state's *representation* alone (a field moved or renamed, nothing
played differently) changes ``state_sha256`` only. ``--refresh-state`` then rewrites
those digests, and only those, after checking that every game still replays with the
same events, scores and winners. A new event type added to the log (nothing else played
differently) changes ``events``, ``events_sha256`` and ``state_sha256`` (the state counts
its events); ``--refresh-added-events TYPE`` rewrites them after checking that, leaving
those events out, every game replays to the recorded digests.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs

from darkroad.core import Engine, Event, Game, GameConfig
from darkroad.core.actions import Action
from darkroad.core.errors import DarkroadError

CORPUS = Path(__file__).parent / "data" / "recorded_games.json.gz"
FORMAT = 1
GAMES = 90
SEED = 7000
SHAPES: tuple[tuple[int, bool], ...] = (
    (2, False), (3, False), (4, False), (2, True), (3, True), (4, True), (4, False), (3, False), (2, False),
)
"""(players, Private Concern) in turn: 2-4 players, solo (2 seats with the Private Concern)
and the Private Concern in a 3- or 4-player game."""


# -- configurations and policies -----------------------------------------------------------


def game_plan(index: int, seed: int = SEED) -> tuple[GameConfig, list[str]]:
    """The config and per-seat policy of recorded game ``index`` (deterministic)."""
    r = random.Random(f"{seed}:{index}")
    players, concern = SHAPES[index % len(SHAPES)]
    variants: dict[str, Any] = {}
    if r.random() < 0.4:
        variants["drafting"] = True
    if r.random() < 0.4:
        variants["advanced_deeds"] = True
    concern_seat = r.randrange(players) if concern and r.random() < 0.3 else None
    options: dict[str, Any] = {"private_concern": concern, "private_concern_seat": concern_seat} if concern else {}
    config = GameConfig(players=players, seed=seed + index, random_buildings=r.random() < 0.6,
                        variants=variants, options={k: v for k, v in options.items() if v is not None})
    # One game in four is played by the greedy bot at every seat, one in four mixes it with
    # random players; the rest are random play (which reaches the odd corners of the rules).
    style = index % 4
    policy = ["greedy" if style == 0 or (style == 1 and seat % 2 == 0) else "random" for seat in range(players)]
    return config, policy


def _bots(engine: Engine, policy: Sequence[str], seed: int) -> list[Any]:
    """Per seat: the installed greedy bot, or a seeded random player."""
    out: list[Any] = []
    for seat, name in enumerate(policy):
        out.append(engine.bots["greedy"] if name == "greedy" else random.Random(seed * 10 + seat))
    return out


def play(engine: Engine, config: GameConfig, policy: Sequence[str]) -> list[Action]:
    """Play a game with ``policy`` and return its actions."""
    game, _ = engine.create(_fresh(config))
    bots = _bots(engine, policy, config.seed)
    actions = []
    while not game.finished:
        awaiting = engine.awaiting(game)
        seat = awaiting[0] if len(awaiting) == 1 else random.Random(game.version).choice(awaiting)
        legal = engine.legal_actions(game, seat)
        bot = bots[seat]
        action = bot.choice(legal) if isinstance(bot, random.Random) else bot.choose(engine, game, seat, legal)
        actions.append(action)
        engine.apply(game, action)
    return actions


def _fresh(config: GameConfig) -> GameConfig:
    return GameConfig(players=config.players, seed=config.seed, buildings=list(config.buildings),
                      random_buildings=config.random_buildings, variants=dict(config.variants),
                      companions=list(config.companions), options=dict(config.options))


# -- replay and digests ----------------------------------------------------------------------


class Diverged(Exception):
    """A recorded action is not legal any more (or the game ended before/after the list)."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(f"action #{index}: {reason}")
        self.index = index


def replay(engine: Engine, config: GameConfig, actions: Sequence[Action],
           without: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Replay ``actions`` and return the final digest; raises :class:`Diverged`.

    ``without``: event types left out of the event digest, the others numbered as if they
    had never been emitted (how the log looked before those events were added), and
    ``TYPE.FIELD`` data fields left out of that type's events (before that field was added)."""
    game, events = engine.create(_fresh(config))
    sha = hashlib.sha256()
    count = 0
    types = {name for name in without if "." not in name}
    fields: dict[str, set[str]] = {}
    for name in without - types:
        kind, _, key = name.partition(".")
        fields.setdefault(kind, set()).add(key)

    def digest(events: Sequence[Event]) -> None:
        nonlocal count
        for e in events:
            if e.type in types:
                continue
            if e.type in fields:
                e = attrs.evolve(e, data={k: v for k, v in e.data.items() if k not in fields[e.type]})
            sha.update(engine.encode(attrs.evolve(e, n=count) if types else e) + b"\n")
            count += 1

    digest(events)
    for i, action in enumerate(actions):
        if game.finished:
            raise Diverged(i, "the game is already over")
        try:
            events = engine.apply(game, action)
        except DarkroadError as exc:
            raise Diverged(i, f"{action.type}/{action.option} by seat {action.seat}: {exc}") from exc
        digest(events)
    if not game.finished:
        raise Diverged(len(actions), f"the game is not over after the recorded actions ({engine.decision(game)})")
    return final(engine, game, count, sha.hexdigest())


def final(engine: Engine, game: Game, events: int, events_sha: str) -> dict[str, Any]:
    return {
        "version": game.version,
        "round": game.round,
        "events": events,
        "events_sha256": events_sha,
        "state_sha256": state_sha256(engine, game),
        "winners": list(game.winners),
        "scores": [engine.serde.unstructure(s) for s in game.score],
    }


def state_sha256(engine: Engine, game: Game) -> str:
    """The SHA-256 of the serialised state with sorted keys (the order in which a dict's keys
    were inserted is not part of the state)."""
    canonical = json.dumps(json.loads(engine.dumps(game)), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def outcome(digest: dict[str, Any]) -> tuple[list[int], list[int]]:
    """(winners, every seat's total): what "the outcome changed" compares."""
    return list(digest["winners"]), [s["total"] for s in sorted(digest["scores"], key=lambda s: s["seat"])]


# -- the file ----------------------------------------------------------------------------------


def encode_game(engine: Engine, config: GameConfig, policy: Sequence[str], actions: Sequence[Action],
                digest: dict[str, Any]) -> dict[str, Any]:
    return {"config": engine.serde.unstructure(_fresh(config)), "policy": list(policy),
            "actions": [[a.type, a.seat, a.option] for a in actions], "final": digest}


def decode_game(engine: Engine, record: dict[str, Any]) -> tuple[GameConfig, list[Action]]:
    config = engine.serde.c.structure(record["config"], GameConfig)
    return config, [Action(type=t, seat=s, option=o) for t, s, o in record["actions"]]


def load(path: Path = CORPUS) -> dict[str, Any]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def save(data: dict[str, Any], path: Path = CORPUS) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, separators=(",", ":"), sort_keys=True)
    # mtime=0: the same corpus gives the same bytes (no spurious diff when re-recorded).
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        f.write(text.encode())


def record(engine: Engine, games: int = GAMES, seed: int = SEED) -> Iterator[dict[str, Any]]:
    for index in range(games):
        config, policy = game_plan(index, seed)
        actions = play(engine, config, policy)
        yield encode_game(engine, config, policy, actions, replay(engine, config, actions))


# -- comparing a corpus with the current engine -------------------------------------------------


def compare(engine: Engine, old: dict[str, Any]) -> dict[str, Any]:
    """How the current engine differs from a recorded corpus, game by game.

    ``replayed``: the old action list on the current engine: ``identical``, ``diverged``
    (an action became illegal; the index) or ``changed`` (the same actions, another end).
    ``rerecorded``: the same seed and policy played again: ``same_outcome`` or
    ``changed_outcome`` (other winners or scores)."""
    rows = []
    for i, rec in enumerate(old["games"]):
        config, actions = decode_game(engine, rec)
        row: dict[str, Any] = {"game": i}
        try:
            digest = replay(engine, config, actions)
            row["replayed"] = "identical" if digest == rec["final"] else "changed"
            if row["replayed"] == "changed":
                row["changed_outcome_on_replay"] = outcome(digest) != outcome(rec["final"])
        except Diverged as exc:
            row["replayed"], row["diverged_at"], row["reason"] = "diverged", exc.index, str(exc)
        new_actions = play(engine, config, rec["policy"])
        new = replay(engine, config, new_actions)
        row["rerecorded"] = "same_outcome" if outcome(new) == outcome(rec["final"]) else "changed_outcome"
        if row["rerecorded"] == "changed_outcome":
            row["old"], row["new"] = outcome(rec["final"]), outcome(new)
        row["winner_changed"] = sorted(new["winners"]) != sorted(rec["final"]["winners"])
        rows.append(row)
    summary = {
        "games": len(rows),
        "replay_identical": sum(r["replayed"] == "identical" for r in rows),
        "replay_diverged": sum(r["replayed"] == "diverged" for r in rows),
        "replay_changed_end": sum(r["replayed"] == "changed" for r in rows),
        "rerecorded_changed_outcome": sum(r["rerecorded"] == "changed_outcome" for r in rows),
        "rerecorded_changed_winner": sum(r["winner_changed"] for r in rows),
    }
    return {"summary": summary, "games": rows}


def refresh_state(engine: Engine, data: dict[str, Any]) -> int:
    """Rewrite the state digests of games whose events, scores and winners replay unchanged;
    refuse (SystemExit) if any game plays differently."""
    changed = 0
    for i, rec in enumerate(data["games"]):
        config, actions = decode_game(engine, rec)
        digest = replay(engine, config, actions)
        same = {k: v for k, v in digest.items() if k != "state_sha256"}
        want = {k: v for k, v in rec["final"].items() if k != "state_sha256"}
        if same != want:
            raise SystemExit(f"game {i} plays differently (not a change of representation): re-record instead")
        if digest["state_sha256"] != rec["final"]["state_sha256"]:
            rec["final"]["state_sha256"] = digest["state_sha256"]
            changed += 1
    return changed


def refresh_added_events(engine: Engine, data: dict[str, Any], added: frozenset[str]) -> int:
    """Rewrite the event and state digests of games whose play is unchanged except for new
    events of the types ``added`` (or new data fields, ``TYPE.FIELD``): without them, the events
    replay to the recorded digest, with the same scores, winners, version and round. Refuse
    (SystemExit) otherwise."""
    changed = 0
    for i, rec in enumerate(data["games"]):
        config, actions = decode_game(engine, rec)
        before = replay(engine, config, actions, without=added)
        same = {k: v for k, v in before.items() if k != "state_sha256"}
        want = {k: v for k, v in rec["final"].items() if k != "state_sha256"}
        if same != want:
            raise SystemExit(f"game {i} plays differently, beyond the added events {sorted(added)}: re-record instead")
        now = replay(engine, config, actions)
        if now != rec["final"]:
            rec["final"] = now
            changed += 1
    return changed


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=GAMES)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--output", type=Path, default=CORPUS)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--compare", type=Path, metavar="OLD",
                      help="compare a recorded corpus with the current engine (writes nothing)")
    mode.add_argument("--refresh-state", action="store_true",
                      help="rewrite only the state digests of --output (the games must play identically)")
    mode.add_argument("--refresh-added-events", metavar="TYPE[,TYPE.FIELD]",
                      help="rewrite the event and state digests of --output after new event types (or data "
                           "fields of a type's events) were added (the games must play identically without them)")
    args = ap.parse_args(argv)
    engine = Engine.load(strict=True)
    t0 = time.perf_counter()
    if args.compare:
        report = compare(engine, load(args.compare))
        print(json.dumps(report, indent=1))
        return
    if args.refresh_added_events:
        data = load(args.output)
        n = refresh_added_events(engine, data, frozenset(args.refresh_added_events.split(",")))
        save(data, args.output)
        print(f"{n} game digest(s) rewritten in {args.output}", file=sys.stderr)
        return
    if args.refresh_state:
        data = load(args.output)
        n = refresh_state(engine, data)
        save(data, args.output)
        print(f"{n} state digest(s) rewritten in {args.output}", file=sys.stderr)
        return
    games = []
    for i, rec in enumerate(record(engine, args.games, args.seed)):
        games.append(rec)
        print(f"\rrecorded {i + 1}/{args.games}", end="", file=sys.stderr)
    save({"format": FORMAT, "seed": args.seed, "games": games}, args.output)
    size = args.output.stat().st_size
    print(f"\n{len(games)} games, {sum(len(g['actions']) for g in games)} actions, {size / 1024:.0f} KiB, "
          f"{time.perf_counter() - t0:.1f} s -> {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
