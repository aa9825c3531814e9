// The replay of a finished game: its versions one at a time, as the viewer saw them
// (GET /v1/games/{id}/history/{version}: a seat's link replays that seat's views, a
// spectator's link the public ones), stepped by action, turn or round, with a slider and the
// keyboard's arrows. `#at=N` in the page's fragment opens it at version N.
import { type Api, ApiError, asProblem, type GameEvent, type GameView } from "./api";
import { h } from "./dom";
import { t } from "./i18n";

export interface HistoryEntry {
  version: number;
  latest: number;
  finished: boolean;
  view: GameView;
  events: GameEvent[];
}

export type Unit = "action" | "turn" | "round";

/** What a turn or a round is, from a view: the versions of one turn share its round and seat. */
function mark(view: GameView, unit: Unit): string {
  return unit === "round" ? String(view.round) : `${view.round}/${view.active_seat}`;
}

export class Replay {
  private readonly entries = new Map<number, HistoryEntry>();
  /** The version shown, and its entry once loaded. */
  at = 0;
  shown: HistoryEntry | null = null;
  latest = 0;
  /** The version shown is the ``step``-th of its turn (1: the turn's first). */
  step = 1;
  /** The last event of the game up to the version shown (what the log shows). */
  lastEvent = -1;

  constructor(
    private readonly client: Api,
    private readonly gameId: string,
  ) {}

  /** The entry of ``version`` (fetched once). */
  async entry(version: number): Promise<HistoryEntry> {
    const kept = this.entries.get(version);
    if (kept) return kept;
    const { data, error, response } = await this.client.GET("/v1/games/{game_id}/history/{version}", {
      params: { path: { game_id: this.gameId, version } },
    });
    if (!data) throw new ApiError(response.status, asProblem(error));
    const entry = data as unknown as HistoryEntry;
    this.entries.set(version, entry);
    this.latest = entry.latest;
    return entry;
  }

  /** Show ``version`` (kept within the game's versions). */
  async go(version: number): Promise<void> {
    const latest = this.shown ? this.latest : (await this.entry(0)).latest;
    const at = Math.max(0, Math.min(latest, Math.round(version)));
    const shown = await this.entry(at);
    const step = at - (await this.turnStart(at)) + 1;
    const lastEvent = await this.lastEventUpTo(at);
    [this.shown, this.at, this.step, this.lastEvent] = [shown, at, step, lastEvent];
  }

  /** The first version of the turn ``version`` belongs to. */
  async turnStart(version: number): Promise<number> {
    const now = mark((await this.entry(version)).view, "turn");
    let v = version;
    while (v > 0 && mark((await this.entry(v - 1)).view, "turn") === now) v--;
    return v;
  }

  /** The last event the viewer saw up to ``version`` (an action may make no event they see). */
  async lastEventUpTo(version: number): Promise<number> {
    for (let v = version; v >= 0; v--) {
      const events = (await this.entry(v)).events;
      const last = events[events.length - 1];
      if (last) return last.n;
    }
    return -1;
  }

  /** The version one ``unit`` before or after the one shown: the first version of the next turn
   * (or round), or the first of the one before (the start of the one shown when ``back`` from
   * inside it). */
  async target(unit: Unit, back: boolean): Promise<number> {
    if (unit === "action") return this.at + (back ? -1 : 1);
    const here = this.shown ?? (await this.entry(this.at));
    const now = mark(here.view, unit);
    if (!back) {
      for (let v = this.at + 1; v <= this.latest; v++) if (mark((await this.entry(v)).view, unit) !== now) return v;
      return this.latest;
    }
    // Back to the start of the turn shown; from its start, to the start of the one before.
    let v = this.at;
    while (v > 0 && mark((await this.entry(v - 1)).view, unit) === now) v--;
    if (v < this.at) return v;
    if (v === 0) return 0;
    const before = mark((await this.entry(v - 1)).view, unit);
    v -= 1;
    while (v > 0 && mark((await this.entry(v - 1)).view, unit) === before) v--;
    return v;
  }
}

/** The replay's controls: buttons by action, turn and round, a slider, the version shown. */
/** The moment a replay shows, in rounds and turns: "Round 7, Ann's turn, step 3". ``turnOf``
 * says whose turn a seat's is ("Ann's turn", "your turn"). */
export function momentWords(replay: Replay, turnOf: (seat: number) => string): string {
  const view = replay.shown?.view;
  if (!view) return "";
  if (view.status === "finished") return t("The end of the game: the final score");
  if (view.round === 0) return t("The setup, step %(step)s", { step: replay.step });
  if (view.phase === "final_travel") return t("The final travel, step %(step)s", { step: replay.step });
  return t("Round %(round)s of 13, %(turn)s, step %(step)s", { round: view.round, turn: turnOf(view.active_seat), step: replay.step });
}

export function replayControls(replay: Replay, go: (version: number) => void, step: (unit: Unit, back: boolean) => void,
  leave: () => void, turnOf: (seat: number) => string): HTMLElement {
  const where = momentWords(replay, turnOf);
  const button = (label: string, unit: Unit, back: boolean, keys: string) =>
    h("button", { type: "button", class: `replay-${back ? "prev" : "next"}-${unit}`, "aria-keyshortcuts": keys,
      onclick: () => step(unit, back) }, label);
  const slider = h("input", {
    type: "range", min: 0, max: replay.latest, value: replay.at, step: 1, class: "replay-slider",
    "aria-label": t("The moment replayed"), "aria-valuetext": where,
  });
  slider.addEventListener("input", () => go(Number(slider.value)));
  return h("div", { class: "replay", role: "group", "aria-label": t("Replay") },
    h("p", { class: "replay-where" }, where),
    h("p", { class: "muted replay-version" }, t("Action %(at)s of the game's %(latest)s", { at: replay.at, latest: replay.latest })),
    slider,
    // The arrows are characters every stock font has (DejaVu Sans, Liberation: Debian's
    // Chromium); the media-control symbols (U+23EE, U+23ED) are in neither.
    h("div", { class: "actions replay-steps" },
      button("« " + t("Round"), "round", true, "PageUp"),
      button("◀ " + t("Turn"), "turn", true, "ArrowUp"),
      button("‹ " + t("Step"), "action", true, "ArrowLeft"),
      button(t("Step") + " ›", "action", false, "ArrowRight"),
      button(t("Turn") + " ▶", "turn", false, "ArrowDown"),
      button(t("Round") + " »", "round", false, "PageDown")),
    h("p", { class: "muted" }, t("Keys: ← → a step, ↑ ↓ a turn, Page Up / Page Down a round, Home / End the start / the end.")),
    h("button", { type: "button", class: "replay-leave", onclick: leave }, t("Leave the replay")));
}

/** The version a key moves to in the replay (null: not a replay key). */
export function keyStep(key: string): { unit: Unit; back: boolean } | "start" | "end" | null {
  switch (key) {
    case "ArrowLeft": return { unit: "action", back: true };
    case "ArrowRight": return { unit: "action", back: false };
    case "ArrowUp": return { unit: "turn", back: true };
    case "ArrowDown": return { unit: "turn", back: false };
    case "PageUp": return { unit: "round", back: true };
    case "PageDown": return { unit: "round", back: false };
    case "Home": return "start";
    case "End": return "end";
    default: return null;
  }
}

/** ``at`` of a page's fragment (#at=N, with a seat's link or alone), if any. */
export function atOf(hash: string): number | null {
  const at = new URLSearchParams(hash.replace(/^#/, "")).get("at");
  return at !== null && /^\d+$/.test(at) ? Number(at) : null;
}

/** The fragment with ``at`` set (null: removed), the seat's link kept. */
export function withAt(hash: string, at: number | null): string {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  if (at === null) params.delete("at");
  else params.set("at", String(at));
  const text = params.toString();
  return text ? `#${text}` : "";
}
