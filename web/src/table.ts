// GET /play/{game_id}: the table. A seat's link carries its token in the URL fragment
// (#seat=N&token=T); without one the page is a spectator's. The page follows the game's event
// stream (no polling): each batch of events reloads the view (If-None-Match) and the seat's legal
// actions, and the event log grows from the same stream. A click submits the action with
// If-Match and an Idempotency-Key. A game waiting for players shows its seats (and, to a visitor
// without a token, a join form per open seat) until the stream says every seat is taken; a seat
// awaited past the game's turn timeout may be handed to a bot by another player, and a player
// whose seat a bot plays may take it back. While the view says `undo_available`, an Undo button
// (and Ctrl+Z) takes back the seat's last action (POST .../undo, If-Match and an Idempotency-Key).
import { EventSourceParserStream } from "eventsource-parser/stream";
import {
  api, ApiError, asProblem, idempotencyKey, sleep,
  type Action, type Api, type GameEvent, type GameView, type SeatView,
} from "./api";
import { fill, h, patch } from "./dom";
import { describe } from "./events";
import { language, t, tn } from "./i18n";
import { decisionBoard } from "./focus";
import { joinForm, seatWords, timeoutWords } from "./lobby";
import { EventLog, sentence } from "./log";
import { Names, wordsFor } from "./names";
import { pawn, renderPanels, renderPlayers, renderRingway, renderScore, type Seats } from "./render";
import { atOf, keyStep, Replay, replayControls, type Unit, withAt } from "./replay";

type Link = "connecting" | "live" | "reconnecting" | "over" | "lost";

const LINK_WORDS: Record<Link, () => string> = {
  connecting: () => t("connecting…"),
  live: () => t("live"),
  reconnecting: () => t("reconnecting…"),
  over: () => t("game over"),
  lost: () => t("not following the game"),
};

/** The phases of a turn and a game (the view's ``phase``), in words. */
const phase = wordsFor({
  setup: () => t("setup"), plan: () => t("plan"), move: () => t("move"), activate: () => t("activate"),
  rest: () => t("rest"), final_travel: () => t("final travel"), finished: () => t("game over"),
}, (id) => id.replace(/_/g, " "));

const AUTO_TAKE = "darkroad.play.autoTake";

/** The table's setting "take a decision with a single answer for me": on unless turned off
 * (remembered in this browser; a browser that keeps nothing has it on). */
function autoTakeSetting(): boolean {
  try {
    return window.localStorage.getItem(AUTO_TAKE) !== "off";
  } catch {
    return true;
  }
}

function rememberAutoTake(on: boolean): void {
  try {
    window.localStorage.setItem(AUTO_TAKE, on ? "on" : "off");
  } catch {
    // A browser that keeps nothing: the setting lasts as long as the page.
  }
}

/** Words for a refused action (409 and friends): what happened, what the page did. */
function refusal(error: ApiError): string {
  switch (error.type) {
    case "stale-version":
      return t("Someone acted before you: the table is refreshed, choose again.");
    case "illegal-action":
    case "not-your-decision":
      return t("That action is no longer possible: the table is refreshed, choose again.");
    case "game-finished":
      return t("The game is over.");
    case "game-not-started":
      return t("The game waits for players: nobody may act before every seat is taken.");
    case "seat-replaced":
      return t("A bot plays your seat since you took too long: take it back first.");
    case "not-overdue":
      return t("Not yet: %(reason)s", { reason: error.problem?.detail ?? error.message });
    case "game-started":
      return t("The game has started: seats can no longer be left.");
    case "cannot-undo":
      return t("Cannot undo: %(reason)s", { reason: error.problem?.detail ?? error.message });
    default:
      return t("The server refused the action: %(reason)s", { reason: error.message });
  }
}

export class Table implements Seats {
  readonly client: Api;
  view: GameView | null = null;
  /** The ``ETag`` of the view shown: a tag of its language (``"41-hu"``), sent as If-None-Match. */
  private etag: string | null = null;
  actions: Action[] = [];
  actionsVersion = -1;
  message = "";
  /** Why the last load failed (cleared by the next one that works). */
  trouble = "";
  link: Link = "connecting";
  /** Take a decision with a single answer by itself (the table's setting). */
  autoTake = autoTakeSetting();
  /** The version the page last answered by itself: at most once per version. */
  private autoTaken = -1;
  /** The version an undo brought back: its decision is the player's to take again. */
  private undoneTo = -1;
  /** The replay of a finished game, while the viewer steps through it (#at=N). */
  replay: Replay | null = null;
  private replaying = false;
  private acting = false;
  private dirty = false;
  private loading: Promise<void> | null = null;
  private rendered = "";
  /** The decision had the focus when the seat acted: give it to the next decision. */
  private refocus = false;
  private readonly labels = new Map<string, string>();
  /** The join forms of a waiting game's open seats, kept across renders (a name half typed stays). */
  private readonly joinForms = new Map<number, HTMLFormElement>();
  /** Re-draws the seats when the next seat's turn timeout runs out. */
  private timer: number | undefined;
  readonly log = new EventLog((event, label) =>
    label ? t("%(who)s chose: %(label)s", { who: this.name(event.seat ?? 0), label }) : describe(event, this.names, (s) => this.name(s)));
  /** The seats' names the log's lines were worded with. */
  private logNames = "";
  private readonly parts = {
    header: h("header", { class: "top" }),
    seats: h("section", { id: "seats", "aria-labelledby": "seats-title" }),
    score: h("div", { class: "score-slot" }),
    decision: h("section", { id: "decision", "aria-labelledby": "decision-title" }),
    ringway: h("div", { class: "ringway-slot" }),
    players: h("div", { class: "players-slot" }),
    board: h("div", { class: "board-slot" }),
  };

  constructor(
    readonly root: HTMLElement,
    readonly gameId: string,
    readonly names: Names,
    readonly me: number | null,
    token: string | undefined,
    /** The open seat the visitor came to join (a join link: #join=N). */
    readonly joining: number | null = null,
  ) {
    this.client = api(token);
    fill(root,
      this.parts.header,
      h("div", { class: "table" },
        this.parts.score,
        h("div", { class: "side" },
          this.parts.decision,
          this.parts.seats,
          h("section", { id: "events", "aria-labelledby": "events-title" }, h("h2", { id: "events-title" }, t("What happened")), this.log.element)),
        this.parts.ringway,
        this.parts.players,
        this.parts.board));
  }

  /** A seat's player by name ("Ann", "Greedy (bot)", "Player 2"), "(you)" for the viewer's. */
  name(seat: number): string {
    const name = this.seatName(seat);
    return seat === this.me ? t("%(name)s (you)", { name }) : name;
  }

  /** A seat's player by name, the viewer's too ("Ann", "Greedy (bot)", "Player 2"). */
  seatName(seat: number): string {
    if (this.view && this.view.config.private_concern === seat) return t("the Private Concern");
    const record = this.view?.seats[seat];
    return record?.kind === "open" ? t("Seat %(number)s (open)", { number: seat + 1 })
      : record ? seatWords(record, this.names) : t("Player %(number)s", { number: seat + 1 });
  }

  /** Load the view and the legal actions again (once more if asked while loading). */
  refresh(): void {
    this.dirty = true;
    if (!this.loading) {
      this.loading = this.load().finally(() => {
        this.loading = null;
        this.takeTheOnlyAnswer();
        this.settle();
      });
    }
    this.settle();
  }

  private async load(): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      try {
        await this.fetchView();
        this.trouble = "";
        this.render();
      } catch (error) {
        this.trouble = t("Cannot load the table: %(reason)s", { reason: error instanceof Error ? error.message : String(error) });
        this.render();
        // A refusal is final, but for too many requests (429): the seat's turn would never load.
        if (error instanceof ApiError && error.status < 500 && error.status !== 429) return;
        await sleep(1000);
        this.dirty = true;
      }
    }
  }

  private async fetchView(): Promise<void> {
    const header = this.view && this.etag ? { "If-None-Match": this.etag } : {};
    const { data, error, response } = await this.client.GET("/v1/games/{game_id}", {
      params: { path: { game_id: this.gameId }, header },
    });
    if (data) [this.view, this.etag] = [data, response.headers.get("ETag")];
    else if (response.status !== 304) throw new ApiError(response.status, asProblem(error));
    const view = this.view;
    if (!view || this.me === null || view.status === "waiting" || this.actionsVersion === view.version) return;
    if (!view.awaiting.includes(this.me)) {
      // Not the seat's decision: the engine lists no action for it (its legal actions are
      // those of the awaited seats), so the page asks none. Half of the pages' requests for
      // the actions were for seats not awaited (the commit message has the figures).
      [this.actions, this.actionsVersion] = [[], view.version];
      return;
    }
    const listed = await this.client.GET("/v1/games/{game_id}/actions", { params: { path: { game_id: this.gameId } } });
    if (!listed.data) throw new ApiError(listed.response.status, asProblem(listed.error));
    this.actions = listed.data.actions;
    this.actionsVersion = listed.data.version;
    for (const action of this.actions) if (action.label) this.labels.set(`${action.type}\n${action.option}`, action.label);
    if (listed.data.version !== view.version) this.dirty = true; // someone acted in between
  }

  /** Submit ``action`` (If-Match: the version shown; retries keep the Idempotency-Key). */
  async act(action: Action): Promise<void> {
    await this.commit(action);
  }

  /** Take back the seat's last action (while the view says it may: the engine decides). */
  async undo(): Promise<void> {
    if (this.view?.undo_available && this.me !== null) await this.commit(null);
  }

  /** Submit ``action``, or an undo (``null``), as :meth:`act` says. */
  private async commit(action: Action | null): Promise<void> {
    const view = this.view;
    if (this.acting || !view) return;
    this.acting = true;
    this.message = "";
    this.refocus = this.parts.decision.contains(document.activeElement);
    this.settle();
    this.parts.decision.querySelectorAll("button").forEach((b) => b.setAttribute("disabled", ""));
    const header = { "If-Match": `"${view.version}"`, "Idempotency-Key": idempotencyKey() };
    try {
      for (let attempt = 1; ; attempt++) {
        let answer;
        try {
          answer = action === null
            ? await this.client.POST("/v1/games/{game_id}/undo", { params: { path: { game_id: this.gameId }, header } })
            : await this.client.POST("/v1/games/{game_id}/actions", {
              params: { path: { game_id: this.gameId }, header },
              body: action,
            });
        } catch (lost) {
          // The connection dropped: the same key makes a retry safe (answered, never acted twice).
          if (attempt >= 5) throw lost;
          await sleep(500 * attempt);
          continue;
        }
        const { data, error, response } = answer;
        if (data) {
          [this.view, this.etag] = [data, response.headers.get("ETag")];
          if (action === null) this.undoneTo = data.version;
          break;
        }
        const problem = new ApiError(response.status, asProblem(error));
        if (response.status === 503 && attempt < 5) {
          await sleep(1000 * Number(response.headers.get("Retry-After") ?? attempt));
          continue;
        }
        this.message = response.status === 409 ? refusal(problem)
          : action === null ? t("The undo failed: %(reason)s", { reason: problem.message }) : t("The action failed: %(reason)s", { reason: problem.message });
        break;
      }
    } catch (error) {
      this.message = t("The action may not have reached the server (%(reason)s): the table is refreshed.", { reason: error instanceof Error ? error.message : String(error) });
    } finally {
      this.acting = false;
      this.actionsVersion = -1;
      this.refresh();
    }
  }

  /** The page's state for people (aria-busy) and for tests (data-state, data-version). */
  private settle(): void {
    const busy = this.acting || this.replaying || this.loading !== null || this.view === null;
    this.root.dataset.state = this.view === null && this.trouble && !this.loading ? "error" : busy ? "busy" : "ready";
    this.root.setAttribute("aria-busy", String(busy));
    const shown = this.shown();
    if (shown) this.root.dataset.version = String(shown.version);
    if (this.replay) this.root.dataset.replay = String(this.replay.latest);
    else delete this.root.dataset.replay;
    this.root.dataset.link = this.link;
  }

  setLink(link: Link): void {
    if (this.link === link) return;
    this.link = link;
    this.renderHeader();
    this.settle();
  }

  // -- drawing -----------------------------------------------------------------------

  /** The view drawn: the replay's version while replaying, else the game now. */
  shown(): GameView | null {
    return this.replay?.shown?.view ?? this.view;
  }

  render(): void {
    const view = this.shown();
    if (!view) {
      fill(this.parts.decision, h("h2", { id: "decision-title" }, t("The table")),
        h("p", { class: "message", role: "alert" }, this.trouble || this.message || t("Loading…")));
      return;
    }
    const names = this.view ? JSON.stringify([this.view.seats.map((s) => [s.kind, s.name, s.bot]), this.view.config.private_concern]) : "";
    if (names !== this.logNames) {
      this.logNames = names;
      this.log.reword(); // lines that came before the view (or a join) named no one yet
    }
    const key = `${view.version}/${this.actionsVersion}/${this.message}/${this.trouble}/${this.replay ? "replay" : "live"}`;
    if (key === this.rendered) return;
    this.rendered = key;
    const focused = this.refocus || this.parts.decision.contains(document.activeElement);
    document.title = view.status === "waiting" ? t("darkroad: waiting for players")
      : t("darkroad: round %(round)s, %(what)s", { round: view.round, what: view.status === "finished" ? t("game over") : this.waitingFor(view) });
    this.renderHeader();
    if (this.replay) this.renderReplay(view);
    else this.renderDecision(view);
    this.renderSeats(view);
    patch(this.parts.score, renderScore(view, this));
    patch(this.parts.ringway, renderRingway(view, this.names, this));
    patch(this.parts.players, renderPlayers(view, this.names, this));
    patch(this.parts.board, renderPanels(view, this.names, this));
    if (focused && !this.acting) {
      this.refocus = false;
      const target = this.parts.decision.querySelector<HTMLElement>("button:not([disabled])") ?? this.parts.decision.querySelector<HTMLElement>("h2");
      target?.focus();
    }
  }

  private waitingFor(view: GameView): string {
    if (this.me !== null && view.awaiting.includes(this.me)) return t("your decision");
    return view.awaiting.length ? t("waiting for %(seats)s", { seats: view.awaiting.map((s) => this.name(s)).join(", ") }) : "";
  }

  private renderHeader(): void {
    const view = this.shown();
    patch(this.parts.header,
      h("h1", null, h("a", { href: "/play" }, "darkroad")),
      h("p", { class: "where" },
        h("span", null, t("Game %(game)s…", { game: this.gameId.slice(0, 8) })),
        view ? h("span", null, view.round ? t("Round %(round)s of 13", { round: view.round }) : t("Setup")) : null,
        view ? h("span", null, t("Phase: %(phase)s", { phase: phase(view.phase) })) : null,
        view && view.status === "active" ? h("span", null, t("Turn:"), " ", pawn(view.active_seat, this), " ", this.name(view.active_seat)) : null,
        h("span", null, this.me === null ? t("You are watching") : [t("You are"), " ", pawn(this.me, this), " ", this.seatName(this.me)])),
      h("p", { class: `link ${this.link}`, role: "status" }, "● ", LINK_WORDS[this.link]()));
  }

  private renderDecision(view: GameView): void {
    const decision = view.decision;
    const mine = this.me !== null && view.awaiting.includes(this.me);
    const ready = this.actionsVersion === view.version;
    let title: string;
    if (view.status === "waiting") {
      const open = view.seats.filter((s) => s.kind === "open").length;
      fill(this.parts.decision,
        h("h2", { id: "decision-title", tabindex: -1 }, t("Waiting for players")),
        h("p", { class: "prompt" }, tn("The game begins when every seat is taken: %(num)d seat is open.", "The game begins when every seat is taken: %(num)d seats are open.", open)),
        h("p", { class: "message", role: "alert" }, this.trouble || this.message),
        this.me === null ? h("p", { class: "muted" }, t("To play, join an open seat under a name (below).")) : null);
      return;
    }
    if (view.status === "finished") title = t("The game is over");
    else if (mine && view.seats[this.me ?? 0]?.replaced) title = t("A bot plays your seat");
    else if (mine) title = t("Your decision");
    else title = view.awaiting.length ? t("Waiting for %(seats)s", { seats: view.awaiting.map((s) => this.name(s)).join(" " + t("and") + " ") }) : t("Waiting for the game");
    const actions = mine && ready ? this.actions : [];
    const main = actions.filter((a) => a.type !== "companion");
    const companions = actions.filter((a) => a.type === "companion");
    // What an answer gives (the engine's details): once above the buttons when every answer
    // shares them (an event card's faces), else under each button's label.
    const shared = main.length > 1 && main.every((a) => a.details && a.details === main[0]?.details) ? main[0]?.details : undefined;
    const button = (action: Action) =>
      h("button", { type: "button", class: "action", "data-type": action.type, onclick: () => void this.act(action) },
        h("span", { class: "label" }, action.label ?? `${action.type}: ${action.option}`),
        action.details && !shared ? h("span", { class: "details" }, action.details) : null);
    fill(this.parts.decision,
      h("h2", { id: "decision-title", tabindex: -1 }, title),
      decision && view.status === "active" ? h("p", { class: "prompt" }, sentence(decision.prompt)) : null,
      h("p", { class: "message", role: "alert" }, this.trouble || this.message),
      shared ? h("p", { class: "details shared" }, shared) : null,
      main.length ? h("div", { class: "actions", id: "actions", role: "group", "aria-label": t("Your legal actions") }, main.map(button)) : null,
      companions.length
        ? h("div", { class: "actions companions", role: "group", "aria-label": t("Companion abilities") },
            h("p", { class: "muted" }, t("Or first use a companion:")), companions.map(button))
        : null,
      mine && view.undo_available && view.status === "active"
        ? h("p", { class: "undo-row" },
            h("button", { type: "button", class: "undo", "aria-keyshortcuts": "Control+Z", title: "Ctrl+Z", onclick: () => void this.undo() },
              t("Undo your last action")),
            h("span", { class: "muted" }, " " + t("(until something is revealed or rolled)")))
        : null,
      mine && !ready ? h("p", { class: "muted" }, t("Loading your actions…")) : null,
      mine && ready && decision && view.status === "active" ? decisionBoard(decision.type, view, this.names, this) : null,
      this.me !== null && view.status === "active" ? this.autoTakeChoice() : null,
      this.me === null && view.status === "active" ? h("p", { class: "muted" }, t("Spectators see only what is public.")) : null,
      view.status === "finished"
        ? h("button", { type: "button", class: "primary replay-start", onclick: () => void this.goTo(0) },
            this.me === null ? t("Replay the game") : t("Replay the game as you saw it"))
        : null);
  }

  /** The table's setting: take a decision with a single answer by itself. */
  private autoTakeChoice(): HTMLElement {
    const box = h("input", { type: "checkbox", id: "auto-take", checked: this.autoTake });
    box.addEventListener("change", () => this.setAutoTake(box.checked));
    return h("p", { class: "setting" }, box,
      h("label", { for: "auto-take" }, " " + t("Take a decision with a single answer for me")),
      h("span", { class: "muted" }, " " + t("(the log says so; Undo still takes it back)")));
  }

  // -- the replay of a finished game ----------------------------------------------------

  /** The replay's panel in place of the decision: the controls and what made the version shown. */
  private renderReplay(view: GameView): void {
    const replay = this.replay;
    if (!replay) return;
    const events = replay.shown?.events ?? [];
    const focused = this.parts.decision.contains(document.activeElement) ? document.activeElement?.className : null;
    fill(this.parts.decision,
      h("h2", { id: "decision-title", tabindex: -1 }, this.me === null ? t("Replay") : t("Replay, as you saw it")),
      replayControls(replay, (v) => void this.goTo(v), (unit, back) => void this.step(unit, back), () => this.leaveReplay(),
        (seat) => this.turnOf(seat)),
      view.decision && view.status === "active" ? h("p", { class: "prompt" }, sentence(view.decision.prompt)) : null,
      h("p", { class: "message", role: "alert" }, this.trouble || this.message),
      h("h3", null, replay.at === 0 ? t("The setup") : t("What this action did")),
      h("ul", { class: "plain replay-events" }, events.map((event) =>
        h("li", { "data-n": event.n }, sentence(describe(event, this.names, (s) => this.name(s)))))));
    if (focused) this.parts.decision.querySelector<HTMLElement>(`.${focused.split(" ")[0]}`)?.focus();
    this.log.showUntil(replay.lastEvent);
  }

  /** Whose turn it is, in words: "your turn", "Ann's turn", "the Private Concern's turn". */
  turnOf(seat: number): string {
    const record = this.view?.seats[seat];
    if (seat === this.me) return t("your turn");
    if (record?.kind === "bot") return t("%(name)s's turn (a bot)", { name: record.name ?? this.names.bot(record.bot ?? "") });
    return t("%(name)s's turn", { name: this.name(seat) });
  }

  /** Show version ``at`` of the finished game (entering the replay if need be). */
  async goTo(at: number): Promise<void> {
    this.replay ??= new Replay(this.client, this.gameId);
    this.replaying = true;
    this.settle();
    try {
      await this.replay.go(at);
      this.message = "";
      window.history.replaceState(null, "", withAt(window.location.hash, this.replay.at) || window.location.pathname);
    } catch (error) {
      this.message = t("Cannot show that version: %(reason)s", { reason: error instanceof Error ? error.message : String(error) });
    } finally {
      this.replaying = false;
      this.rendered = "";
      this.render();
      this.settle();
    }
  }

  /** One action, turn or round back or forth. */
  async step(unit: Unit, back: boolean): Promise<void> {
    if (!this.replay || this.replaying) return;
    this.replaying = true;
    this.settle();
    let target = this.replay.at;
    try {
      target = await this.replay.target(unit, back);
    } finally {
      this.replaying = false;
    }
    await this.goTo(target);
  }

  /** Back to the game as it is now. */
  leaveReplay(): void {
    this.replay = null;
    this.log.showUntil(null);
    window.history.replaceState(null, "", withAt(window.location.hash, null) || window.location.pathname);
    this.rendered = "";
    this.render();
    this.settle();
  }

  /** The replay's keys: arrows, Page Up / Page Down, Home / End (not while typing). */
  onKey(event: KeyboardEvent): void {
    if (!this.replay || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target as HTMLElement | null;
    if (target?.closest("input, textarea, select")) return; // the slider moves itself
    const move = keyStep(event.key);
    if (move === null) return;
    event.preventDefault();
    if (move === "start") void this.goTo(0);
    else if (move === "end") void this.goTo(this.replay.latest);
    else void this.step(move.unit, move.back);
  }

  /** Who sits where; the waiting room's join forms; "hand to a bot" for a seat awaited past the
   * turn timeout (another player's page), "take it back" for the viewer's seat a bot plays. */
  renderSeats(view: GameView): void {
    window.clearTimeout(this.timer);
    const now = Date.now();
    let next = Infinity;
    const waiting = view.status === "waiting";
    const item = (seat: SeatView) => {
      const due = seat.timeout_at === null ? NaN : Date.parse(seat.timeout_at);
      const others = this.me !== null && seat.seat !== this.me && view.status === "active" && !seat.replaced;
      let controls = null;
      if (this.replay) {
        // A version of the past: nothing to join, leave or hand over.
      } else if (seat.kind === "open" && waiting && this.me === null) {
        let form = this.joinForms.get(seat.seat);
        if (!form) {
          form = joinForm(this.gameId, seat.seat, (why) => {
            this.message = why;
            this.rendered = "";
            this.refresh();
          });
          this.joinForms.set(seat.seat, form);
        }
        controls = form;
      } else if (seat.seat === this.me && waiting) {
        controls = h("button", { type: "button", class: "leave", onclick: () => void this.leave() }, t("Leave the seat"));
      } else if (seat.seat === this.me && seat.replaced && view.status === "active") {
        controls = h("button", { type: "button", class: "primary reclaim", onclick: () => void this.seatCall("reclaim", seat.seat) },
          t("Take your seat back"));
      } else if (others && !Number.isNaN(due)) {
        if (due <= now) {
          controls = h("button", { type: "button", class: "claim-timeout", onclick: () => void this.seatCall("timeout", seat.seat) },
            t("%(seat)s took too long: hand the seat to a bot", { seat: seatWords(seat, this.names) }));
        } else {
          next = Math.min(next, due);
          controls = h("span", { class: "muted" }, " " + t("may be handed to a bot from %(time)s", { time: new Date(due).toLocaleTimeString(language) }));
        }
      }
      return h("li", { "data-seat": seat.seat, "data-kind": seat.kind, class: seat.replaced ? "replaced" : "" },
        pawn(seat.seat, this), " ", this.name(seat.seat),
        seat.replaced ? h("span", { class: "badge" }, t("the bot %(bot)s plays for them", { bot: this.names.bot(seat.bot ?? "") })) : null,
        view.awaiting.includes(seat.seat) && view.status === "active" ? h("span", { class: "badge awaited" }, t("deciding")) : null,
        controls ? [" ", controls] : null);
    };
    // A name half typed keeps its form, and its focus, when someone else joins meanwhile.
    const typing = this.parts.seats.contains(document.activeElement) ? document.activeElement as HTMLElement : null;
    fill(this.parts.seats,
      h("h2", { id: "seats-title" }, waiting ? t("Seats") : t("Players")),
      h("ul", { class: "plain seat-list" }, view.seats.map(item)),
      view.turn_timeout ? h("p", { class: "muted timeout-words" }, timeoutWords(view.turn_timeout, view.timeout_bot, this.names)) : null);
    if (typing?.isConnected) typing.focus();
    else if (this.joining !== null && waiting && this.me === null && !this.parts.seats.contains(document.activeElement)) {
      this.joinForms.get(this.joining)?.querySelector("input")?.focus();
    }
    if (Number.isFinite(next)) this.timer = window.setTimeout(() => this.renderSeats(view), Math.min(next - now + 250, 2 ** 31 - 1));
  }

  /** ``timeout`` (hand ``seat`` to a bot) or ``reclaim`` (take the viewer's seat back). */
  async seatCall(what: "timeout" | "reclaim", seat: number): Promise<void> {
    if (this.acting) return;
    this.acting = true;
    this.message = "";
    this.parts.seats.querySelectorAll("button").forEach((b) => b.setAttribute("disabled", ""));
    this.settle();
    try {
      const path = what === "timeout" ? "/v1/games/{game_id}/seats/{seat}/timeout" : "/v1/games/{game_id}/seats/{seat}/reclaim";
      const { data, error, response } = await this.client.POST(path, { params: { path: { game_id: this.gameId, seat } } });
      if (data) [this.view, this.etag] = [data, response.headers.get("ETag")];
      else {
        const problem = new ApiError(response.status, asProblem(error));
        this.message = response.status === 409 ? refusal(problem) : t("The server refused: %(reason)s", { reason: problem.message });
      }
    } catch (error) {
      this.message = t("The request may not have reached the server (%(reason)s): the table is refreshed.", { reason: error instanceof Error ? error.message : String(error) });
    } finally {
      this.acting = false;
      this.actionsVersion = -1;
      this.rendered = "";
      this.refresh();
    }
  }

  /** Give the viewer's seat up while the game waits for players: the page becomes a spectator's. */
  async leave(): Promise<void> {
    if (this.acting || this.me === null) return;
    this.acting = true;
    this.settle();
    const { error, response } = await this.client.POST("/v1/games/{game_id}/seats/{seat}/leave", {
      params: { path: { game_id: this.gameId, seat: this.me } },
    }).catch((lost: unknown) => ({ error: lost, response: null }));
    this.acting = false;
    if (response?.status === 204) {
      window.location.assign(`${window.location.origin}/play/${this.gameId}`);
      return;
    }
    this.message = response === null ? t("The request may not have reached the server: %(reason)s", { reason: String(error) })
      : response.status === 409 ? refusal(new ApiError(response.status, asProblem(error)))
      : t("The server refused: %(reason)s", { reason: new ApiError(response.status, asProblem(error)).message });
    this.rendered = "";
    this.refresh();
  }

  /** Add events to the log (newest first), once each. */
  addEvents(events: GameEvent[]): void {
    this.log.add(events, (decision, option) => this.labels.get(`${decision}\n${option}`));
  }

  /** The decision's only answer, taken by the page itself when the table's setting says so
   * (said in the log): not while replaying or acting, once per version, and never the
   * decision an undo brought back (the player took that answer back on purpose). */
  private takeTheOnlyAnswer(): void {
    const view = this.view;
    const only = this.actions[0];
    if (!this.autoTake || !view || !only || this.actions.length !== 1 || this.replay || this.acting) return;
    if (this.me === null || view.status !== "active" || !view.awaiting.includes(this.me) || view.seats[this.me]?.replaced) return;
    if (this.actionsVersion !== view.version || view.version === this.autoTaken || view.version === this.undoneTo) return;
    this.autoTaken = view.version;
    this.log.note(t("The only answer, taken for you: %(answer)s", { answer: only.label || only.option }));
    void this.commit(only);
  }

  /** Turn the table's setting on or off (remembered in this browser). */
  setAutoTake(on: boolean): void {
    this.autoTake = on;
    rememberAutoTake(on);
    if (on && !this.loading) this.takeTheOnlyAnswer();
  }

  // -- following the game ---------------------------------------------------------------

  /** Follow the event stream until the game is over, resuming after drops (Last-Event-ID). */
  async follow(): Promise<void> {
    let backoff = 500;
    for (;;) {
      let ended = false;
      let received = 0;
      const opened = Date.now();
      try {
        const { data, error, response } = await this.client.GET("/v1/games/{game_id}/stream", {
          params: { path: { game_id: this.gameId }, header: { "Last-Event-ID": String(this.log.lastEvent) } },
          parseAs: "stream",
        });
        if (response.status === 204) {
          this.setLink("over");
          return;
        }
        if (!response.ok || !data) {
          const problem = new ApiError(response.status, asProblem(error));
          if (response.status !== 503) {
            this.trouble = t("Cannot follow the game: %(reason)s", { reason: problem.message });
            this.setLink("lost");
            this.render();
            this.settle();
            return;
          }
          this.setLink("reconnecting");
          await sleep(1000 * Number(response.headers.get("Retry-After") ?? 2));
          continue;
        }
        this.setLink("live");
        const reader = data.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (!value.data) continue; // a heartbeat
          const batch: GameEvent[] = [JSON.parse(value.data) as GameEvent];
          this.addEvents(batch);
          this.refresh();
          received += 1;
          backoff = 500;
        }
        ended = true;
      } catch {
        // The connection dropped: resume after the last event received.
      }
      // The server ended the stream (now and then, and after a finished game's last event):
      // reconnect at once (a 204 then says the game is over). A dropped one, or one ended as
      // soon as it opened (a proxy's doing?): after a pause, growing.
      if (ended && (received > 0 || Date.now() - opened > 5000)) continue;
      this.setLink("reconnecting");
      await sleep(backoff);
      backoff = Math.min(backoff * 2, 8000);
    }
  }
}

/** The seat and token of a seat's link (#seat=N&token=T); none: a spectator, who may have come
 * to join seat ``join`` (a join link, #join=N). */
export function seatOf(hash: string): { seat: number | null; token: string | undefined; join: number | null } {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const token = params.get("token") ?? undefined;
  const seat = Number(params.get("seat"));
  const join = params.get("join") === null ? NaN : Number(params.get("join"));
  if (token && Number.isInteger(seat) && seat >= 0 && seat <= 3) return { seat, token, join: null };
  return { seat: null, token: undefined, join: Number.isInteger(join) && join >= 0 && join <= 3 ? join : null };
}

export async function tablePage(root: HTMLElement, gameId: string): Promise<void> {
  const { data: catalog, error, response } = await api().GET("/v1/catalog");
  if (!catalog) throw new ApiError(response.status, asProblem(error));
  const { seat, token, join } = seatOf(window.location.hash);
  const table = new Table(root, gameId, new Names(catalog), seat, token, join);
  table.render();
  table.refresh();
  const at = atOf(window.location.hash);
  if (at !== null) void table.goTo(at);
  document.addEventListener("keydown", (event) => table.onKey(event));
  // Ctrl+Z (Cmd+Z) takes back the seat's last action while it may, unless the player is typing.
  document.addEventListener("keydown", (event) => {
    const target = event.target as HTMLElement | null;
    const typing = target !== null && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
    if ((event.ctrlKey || event.metaKey) && !event.shiftKey && !event.altKey && event.key.toLowerCase() === "z" && !typing
        && table.view?.undo_available) {
      event.preventDefault();
      void table.undo();
    }
  });
  // Another seat's link pasted into this tab: become that seat.
  window.addEventListener("hashchange", () => {
    const next = seatOf(window.location.hash);
    if (next.seat !== seat || next.token !== token) window.location.reload();
    const to = atOf(window.location.hash);
    if (to !== null && to !== table.replay?.at) void table.goTo(to);
  });
  void table.follow();
}
