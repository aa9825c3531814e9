"""The ``darkroad simulate``, ``darkroad plugins`` and ``darkroad new-plugin`` commands (registered on the CLI app)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from darkroad.api.tools.simulation import GameResult, UnknownBot, seat_bots, simulate, solo_kind
from darkroad.core import BadConfig, Engine, GameConfig, PluginError


def _split(value: str | None) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()] if value else []


def simulate_command(
    ctx: typer.Context,
    games: Annotated[int, typer.Option(min=1, help="How many games to play.")] = 100,
    players: Annotated[int, typer.Option(min=1, max=4, help="Seats per game; 1 is solo against the installed "
                                                                 "seat kind that plays solo.")] = 4,
    seed: Annotated[int, typer.Option(help="Seed of the first game; game i uses seed + i.")] = 0,
    bot: Annotated[str, typer.Option(help="Bot(s) per seat, comma-separated, assigned round-robin: the id of any "
                                          "installed bot (darkroad plugins --all lists them; the base game has "
                                          "random, greedy and search), options after colons: "
                                          "search:think_time=0.1.")] = "random",
    buildings: Annotated[str | None, typer.Option(help="4 building ids, comma-separated "
                                                       "(default: random each game).")] = None,
    companions: Annotated[str | None, typer.Option(help="Fan companion ids, comma-separated, whose cards join "
                                                        "the companion deck of every game.")] = None,
    drafting: Annotated[bool, typer.Option(help="Use the drafting variant.")] = False,
    advanced_deeds: Annotated[bool, typer.Option(help="Use the advanced deed setup.")] = False,
    seat_kind: Annotated[str | None, typer.Option(help="Put an automated seat of this installed seat kind in its "
                                                       "seat (darkroad plugins --all lists them). A seat kind's "
                                                       "field in the API's request, as an option (--<field>, dashes "
                                                       "for underscores), is short for it with 3-4 players.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    check: Annotated[bool, typer.Option(help="Check the invariants after every action of every game (a broken "
                                             "one is an error), not only of those a fan plugin can touch.")] = False,
) -> None:
    """Play complete games in-process with bots and summarise them (who wins with what, and
    how often each building, plugin decision option and companion ability is used)."""
    console = Console(stderr=True)
    engine = _loaded(console, check)
    bots = _split(bot)
    try:
        seat_bots(engine, bots)
    except UnknownBot as exc:
        raise typer.BadParameter(exc.reason, param_hint="--bot") from exc
    seat_kind = _seat_kind(engine, players, seat_kind, ctx.args)
    options = engine.seat_kinds[seat_kind].game_options() if seat_kind else {}
    chosen, fan_companions = _split(buildings), _split(companions)
    config = GameConfig(players=max(players, 2), buildings=chosen, companions=fan_companions, options=options)
    try:
        engine.check_config(config)
    except BadConfig as exc:
        hint = "--companions" if "companion" in exc.reason else "--buildings" if chosen else "--players"
        raise typer.BadParameter(exc.reason, param_hint=hint) from exc
    variants = {k: True for k, on in (("drafting", drafting), ("advanced_deeds", advanced_deeds)) if on}
    def play(progress: Callable[[GameResult], None] | None = None) -> dict[str, Any]:
        return simulate(engine, games, players, seed, bots, chosen, variants, progress=progress,
                        seat_kind=seat_kind, companions=fan_companions)

    if as_json or not console.is_terminal:
        summary = play()
    else:
        with Progress(TextColumn("[bold]simulating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=console) as bar:
            task = bar.add_task("games", total=games)
            summary = play(lambda r: bar.advance(task))
    if as_json:
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    else:
        _print_summary(Console(), summary)
    if summary["errors"]:
        raise typer.Exit(1)


def _loaded(console: Console, check: bool = False) -> Engine:
    """The installed plugins' engine; a plugin that failed to load is missing from every game:
    said before the results. ``check``: its invariants checked in every game."""
    engine = Engine.load()
    engine.check_invariants = engine.check_invariants or check
    for name, reason in sorted(engine.plugins.failed.items()):
        console.print(f"plugin {name!r} failed to load and was skipped: {reason}", style="red", markup=False,
                      highlight=False)
    return engine


def _seat_kind(engine: Engine, players: int, seat_kind: str | None, flags: list[str]) -> str | None:
    """The installed seat kind of ``--seat-kind``, or of a flag among ``flags`` (the options
    typer left: ``--<api field>`` of an installed seat kind, as the API's request asks for it
    with ``<api field>: true``); the solo kind for 1 player."""
    by_flag = {f"--{kind.api_field.replace('_', '-')}": kind for kind in engine.seat_kinds.values()}
    for flag in flags:
        if flag not in by_flag:
            known = ", ".join(sorted(by_flag)) or "none"
            raise typer.BadParameter(f"no such option (the installed seat kinds': {known})", param_hint=flag)
        kind = by_flag[flag]
        if players == 2:  # the flag means 3-4 players, as in the API; 2 seats with it would be the solo game
            raise typer.BadParameter(f"the {kind.name or kind.id} takes the last of 3 or 4 seats; for the solo game "
                                     "use --players 1", param_hint=flag)
        seat_kind = seat_kind or kind.id
    try:
        if players == 1:
            seat_kind = seat_kind or solo_kind(engine)
        if seat_kind is not None and seat_kind not in engine.seat_kinds:
            raise BadConfig("unknown seat kind '%(kind)s'; installed: %(installed)s%(hint)s", kind=seat_kind,
                            installed=", ".join(sorted(engine.seat_kinds)) or "none", hint=engine.failed_hint(seat_kind))
    except BadConfig as exc:
        raise typer.BadParameter(exc.reason, param_hint="--seat-kind") from exc
    return seat_kind


def _print_summary(console: Console, s: dict[str, Any]) -> None:
    t = Table(title="simulation")
    t.add_column("measure")
    t.add_column("value", justify="right")
    kinds = [k for k, v in s.items() if k.endswith("_win_rate") and isinstance(v, float | int)]  # seat kinds'
    for key in ("games", "completed", "errors", "seconds", "games_per_second", "mean_score", "max_score",
                "rounds_played", "mean_steps", *kinds):
        if s.get(key) is not None:
            t.add_row(key, str(s[key]))
    console.print(t)
    for title in ("win_rate_by_bot", "win_rate_by_steed", "win_rate_by_starting_hero", "win_rate_by_building"):
        rows = s[title]
        if not rows:
            continue
        wt = Table(title=title.replace("_", " "))
        for col in ("key", "games", "win rate", "fair share", "ratio"):
            wt.add_column(col, justify="right" if col != "key" else "left")
        for k, v in rows.items():
            wt.add_row(k, str(v["games"]), f"{v['win_rate']:.3f}", f"{v['fair_share']:.3f}", f"{v['ratio_to_fair']:.2f}")
        console.print(wt)
    if s["activations_by_building"]:
        at = Table(title="activations by building")
        for col in ("building", "games in play", "activations", "per game"):
            at.add_column(col, justify="right" if col != "building" else "left")
        for k, v in s["activations_by_building"].items():
            at.add_row(k, str(v["games"]), str(v["activations"]), f"{v['per_game']:.2f}")
        console.print(at)
    if s["answers_by_decision"]:
        dt = Table(title="answers to plugin decisions")
        for col in ("decision", "option", "answers"):
            dt.add_column(col, justify="right" if col == "answers" else "left")
        for kind, options in s["answers_by_decision"].items():
            for i, (option, n) in enumerate(options.items()):
                dt.add_row(kind if i == 0 else "", option, str(n))
        console.print(dt)
    if s["companion_uses"]:
        ct = Table(title="companion abilities triggered")
        ct.add_column("companion:ability")
        ct.add_column("uses", justify="right")
        for k, n in s["companion_uses"].items():
            ct.add_row(k, str(n))
        console.print(ct)
    for e in s["error_seeds"]:
        console.print(f"error in game with seed {e['seed']}: {e['error']}", style="red", markup=False,
                      highlight=False)


def plugins_command(
    show_all: Annotated[bool, typer.Option("--all", help="Include the rulebook's essential plugins and the built-in "
                                                       "base game plugins.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    strict: Annotated[bool, typer.Option(help="Fail when a plugin cannot be loaded.")] = False,
) -> None:
    """List installed plugins (name, kind, version, hooks) and their components (and bots) by kind."""
    try:
        engine = Engine.load(strict=strict)
    except PluginError as exc:
        typer.echo(f"error: {exc.reason}", err=True)
        raise typer.Exit(2) from exc
    report = plugin_report(engine, show_all)
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        console = Console()
        t = Table(title="plugins")
        for col in ("plugin", "kind", "version", "hooks", "components"):
            t.add_column(col, overflow="fold")  # a narrow terminal wraps ids, never cuts them
        for p in report["plugins"]:
            comps = ", ".join(f"{c['kind']}:{c['id']}" for c in report["components"] if c["plugin"] == p["name"])
            t.add_row(p["name"], p["kind"], p["version"], ", ".join(p["hooks"]), comps)
        console.print(t)
        for name, err in report["failed"].items():
            console.print(f"plugin {name!r} failed to load and was skipped: {err}", style="red", markup=False,
                          highlight=False)


def plugin_report(engine: Engine, show_all: bool) -> dict[str, Any]:
    """Plugins with their kind (``essential``: the rulebook's parts; ``builtin``: the base
    game's; ``fan``) and hooks, components (one entry per component, bots with ``"kind":
    "bot"``, seat kinds with ``"kind": "seat_kind"``), load failures."""
    plugins = []
    shown = set()
    for name, loaded in sorted(engine.plugins.plugins.items()):
        if loaded.builtin and not show_all:
            continue
        obj = engine.pm.get_plugin(name)
        hooks = sorted(h.name for h in engine.pm.get_hookcallers(obj) or ())
        plugins.append({"name": name, "kind": loaded.kind, "version": loaded.version, "module": loaded.module,
                        "dist": loaded.dist, "builtin": loaded.builtin, "hooks": hooks})
        shown.add(name)
    components = [{"kind": c["kind"], "id": c["id"], "name": c["name"], "plugin": c["plugin"],
                   "version": c["version"]} for c in engine.catalog() if c["plugin"] in shown]
    for bot_id, bot in sorted(engine.bots.items()):
        plugin = engine.bot_plugins[bot_id]
        if plugin in shown:
            components.append({"kind": "bot", "id": bot_id, "name": bot.name, "plugin": plugin,
                               "version": engine.plugins.plugins[plugin].version})
    for kind_id, kind in sorted(engine.seat_kinds.items()):
        plugin = engine.seat_kind_plugins[kind_id]
        if plugin in shown:
            components.append({"kind": "seat_kind", "id": kind_id, "name": kind.name, "plugin": plugin,
                               "version": engine.plugins.plugins[plugin].version})
    return {"plugins": plugins, "components": components, "failed": dict(engine.plugins.failed)}


def new_plugin_command(
    name: Annotated[str, typer.Argument(help="The plugin's name: lowercase letters, digits and '-' or '_' "
                                             "(e.g. lamp-tower).", metavar="NAME", show_default=False)],
    output: Annotated[Path, typer.Option("--output", "-o", help="Create the package folder NAME in this folder.",
                                         file_okay=False)] = Path("."),
    kind: Annotated[str, typer.Option(help="What the plugin provides: building or bot.")] = "building",
) -> None:
    """Scaffold a fan plugin package: pyproject.toml with the entry point, one building (or
    bot), its test, a README."""
    import importlib.metadata as md

    from darkroad.api.tools import scaffold

    if kind not in scaffold.KINDS:
        raise typer.BadParameter(f"{kind!r}: choose one of {', '.join(scaffold.KINDS)}", param_hint="--kind")
    try:
        scaffold.plugin_names(name)
    except scaffold.ScaffoldError as exc:
        raise typer.BadParameter(str(exc), param_hint="NAME") from exc
    # Names an installed plugin already uses would clash once the new package is installed.
    plugins = [ep.name for ep in md.entry_points(group="darkroad")]
    dists = [d.metadata["Name"] for d in md.distributions() if d.metadata["Name"]]
    try:
        engine = Engine.load()
        components, bots = list(engine.content.components), list(engine.bots)
    except PluginError:
        components, bots = [], []  # a broken installation: `darkroad plugins --strict` says why
    try:
        target, names = scaffold.scaffold(name, output, taken_components=components, taken_plugins=plugins,
                                          taken_dists=dists, kind=kind, taken_bots=bots)
    except scaffold.ScaffoldError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(f"created {target}: distribution {names.dist}, plugin {names.plugin!r}, "
               f"{kind} {names.component!r}")
    typer.echo(f"next: cd {target} && pip install -e '.[test]' && pytest && darkroad plugins")


def register(app: typer.Typer) -> None:
    # ``--<field>`` of an installed seat kind is read from the arguments left over (``_seat_kind``).
    app.command("simulate", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(
        simulate_command)
    app.command("plugins")(plugins_command)
    app.command("new-plugin")(new_plugin_command)
