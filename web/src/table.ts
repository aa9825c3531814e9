// GET /play/{game_id}: the table. A seat's link carries its token in the URL fragment
// (#seat=N&token=T); without one the page is a spectator's. The page follows the game's event
// stream (no polling): each batch of events reloads the view (If-None-Match) and the seat's legal
// actions, and the event log grows from the same stream. A click submits the action with
// If-Match and an Idempotency-Key.
import { EventSourceParserStream } from "eventsource-parser/stream";
import {
  api, ApiError, asProblem, idempotencyKey, sleep,
  type Action, type Api, type GameEvent, type GameView,
} from "./api";
import { fill, h } from "./dom";
import { describe } from "./events";
import { Names } from "./names";
import { pawn, renderPanels, renderPlayers, renderRingway, renderScore, type Seats } from "./render";

type Link = "connecting" | "live" | "reconnecting" | "over" | "lost";

const LINK_WORDS: Record<Link, string> = {
  connecting: "connecting…",
  live: "live",
  reconnecting: "reconnecting…",
  over: "game over",
  lost: "not following the game",
};

/** ``text`` as a sentence: a capital first, a full stop last unless it ends with punctuation. */
function sentence(text: string): string {
  const trimmed = text.trim();
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1) + (/[.?!]$/.test(trimmed) ? "" : ".");
}

/** Words for a refused action (409 and friends): what happened, what the page did. */
function refusal(error: ApiError): string {
  switch (error.type) {
    case "stale-version":
      return "Someone acted before you: the table is refreshed, choose again.";
    case "illegal-action":
    case "not-your-decision":
      return "That action is no longer possible: the table is refreshed, choose again.";
    case "game-finished":
      return "The game is over.";
    default:
      return `The server refused the action: ${error.message}`;
  }
}

export class Table implements Seats {
  readonly client: Api;
  view: GameView | null = null;
  actions: Action[] = [];
  actionsVersion = -1;
  message = "";
  /** Why the last load failed (cleared by the next one that works). */
  trouble = "";
  link: Link = "connecting";
  lastEvent = -1;
  private acting = false;
  private dirty = false;
  private loading: Promise<void> | null = null;
  private rendered = "";
  /** The decision had the focus when the seat acted: give it to the next decision. */
  private refocus = false;
  private readonly labels = new Map<string, string>();
  private readonly logList = h("ol", { class: "log", reversed: true, "aria-label": "Events, newest first" });
  private readonly parts = {
    header: h("header", { class: "top" }),
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
  ) {
    this.client = api(token);
    fill(root,
      this.parts.header,
      h("div", { class: "table" },
        this.parts.score,
        h("div", { class: "side" },
          this.parts.decision,
          h("section", { id: "events", "aria-labelledby": "events-title" }, h("h2", { id: "events-title" }, "What happened"), this.logList)),
        this.parts.ringway,
        this.parts.players,
        this.parts.board));
  }

  name(seat: number): string {
    if (this.view && this.view.config.private_concern === seat) return "the Private Concern";
    return `Player ${seat + 1}${seat === this.me ? " (you)" : ""}`;
  }

  /** Load the view and the legal actions again (once more if asked while loading). */
  refresh(): void {
    this.dirty = true;
    if (!this.loading) {
      this.loading = this.load().finally(() => {
        this.loading = null;
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
        this.trouble = `Cannot load the table: ${error instanceof Error ? error.message : String(error)}`;
        this.render();
        if (error instanceof ApiError && error.status < 500) return;
        await sleep(1000);
        this.dirty = true;
      }
    }
  }

  private async fetchView(): Promise<void> {
    const header = this.view ? { "If-None-Match": `"${this.view.version}"` } : {};
    const { data, error, response } = await this.client.GET("/v1/games/{game_id}", {
      params: { path: { game_id: this.gameId }, header },
    });
    if (data) this.view = data;
    else if (response.status !== 304) throw new ApiError(response.status, asProblem(error));
    const view = this.view;
    if (!view || this.me === null || this.actionsVersion === view.version) return;
    const listed = await this.client.GET("/v1/games/{game_id}/actions", { params: { path: { game_id: this.gameId } } });
    if (!listed.data) throw new ApiError(listed.response.status, asProblem(listed.error));
    this.actions = listed.data.actions;
    this.actionsVersion = listed.data.version;
    for (const action of this.actions) if (action.label) this.labels.set(`${action.type}\n${action.option}`, action.label);
    if (listed.data.version !== view.version) this.dirty = true; // someone acted in between
  }

  /** Submit ``action`` (If-Match: the version shown; retries keep the Idempotency-Key). */
  async act(action: Action): Promise<void> {
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
          answer = await this.client.POST("/v1/games/{game_id}/actions", {
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
          this.view = data;
          break;
        }
        const problem = new ApiError(response.status, asProblem(error));
        if (response.status === 503 && attempt < 5) {
          await sleep(1000 * Number(response.headers.get("Retry-After") ?? attempt));
          continue;
        }
        this.message = response.status === 409 ? refusal(problem) : `The action failed: ${problem.message}`;
        break;
      }
    } catch (error) {
      this.message = `The action may not have reached the server (${error instanceof Error ? error.message : error}): the table is refreshed.`;
    } finally {
      this.acting = false;
      this.actionsVersion = -1;
      this.refresh();
    }
  }

  /** The page's state for people (aria-busy) and for tests (data-state, data-version). */
  private settle(): void {
    const busy = this.acting || this.loading !== null || this.view === null;
    this.root.dataset.state = this.view === null && this.trouble && !this.loading ? "error" : busy ? "busy" : "ready";
    this.root.setAttribute("aria-busy", String(busy));
    if (this.view) this.root.dataset.version = String(this.view.version);
    this.root.dataset.link = this.link;
  }

  setLink(link: Link): void {
    if (this.link === link) return;
    this.link = link;
    this.renderHeader();
    this.settle();
  }

  // -- drawing -----------------------------------------------------------------------

  render(): void {
    const view = this.view;
    if (!view) {
      fill(this.parts.decision, h("h2", { id: "decision-title" }, "The table"),
        h("p", { class: "message", role: "alert" }, this.trouble || this.message || "Loading…"));
      return;
    }
    const key = `${view.version}/${this.actionsVersion}/${this.message}/${this.trouble}`;
    if (key === this.rendered) return;
    this.rendered = key;
    const focused = this.refocus || this.parts.decision.contains(document.activeElement);
    document.title = `darkroad: round ${view.round}, ${view.status === "finished" ? "game over" : this.waitingFor(view)}`;
    this.renderHeader();
    this.renderDecision(view);
    fill(this.parts.score, renderScore(view, this));
    fill(this.parts.ringway, renderRingway(view, this.names, this));
    fill(this.parts.players, renderPlayers(view, this.names, this));
    fill(this.parts.board, renderPanels(view, this.names, this));
    if (focused && !this.acting) {
      this.refocus = false;
      const target = this.parts.decision.querySelector<HTMLElement>("button:not([disabled])") ?? this.parts.decision.querySelector<HTMLElement>("h2");
      target?.focus();
    }
  }

  private waitingFor(view: GameView): string {
    if (this.me !== null && view.awaiting.includes(this.me)) return "your decision";
    return view.awaiting.length ? `waiting for ${view.awaiting.map((s) => this.name(s)).join(", ")}` : "";
  }

  private renderHeader(): void {
    const view = this.view;
    fill(this.parts.header,
      h("h1", null, h("a", { href: "/play" }, "darkroad")),
      h("p", { class: "where" },
        h("span", null, `Game ${this.gameId.slice(0, 8)}…`),
        view ? h("span", null, view.round ? `Round ${view.round} of 13` : "Setup") : null,
        view ? h("span", null, `Phase: ${view.phase.replace(/_/g, " ")}`) : null,
        view && view.status === "active" ? h("span", null, "Turn: ", pawn(view.active_seat, this), " ", this.name(view.active_seat)) : null,
        h("span", null, this.me === null ? "You are watching" : ["You are ", pawn(this.me, this), ` Player ${this.me + 1}`])),
      h("p", { class: `link ${this.link}`, role: "status" }, "● ", LINK_WORDS[this.link]));
  }

  private renderDecision(view: GameView): void {
    const decision = view.decision;
    const mine = this.me !== null && view.awaiting.includes(this.me);
    const ready = this.actionsVersion === view.version;
    let title: string;
    if (view.status === "finished") title = "The game is over";
    else if (mine) title = "Your decision";
    else title = `Waiting for ${view.awaiting.map((s) => this.name(s)).join(" and ") || "the game"}`;
    const actions = mine && ready ? this.actions : [];
    const main = actions.filter((a) => a.type !== "companion");
    const companions = actions.filter((a) => a.type === "companion");
    const button = (action: Action) =>
      h("button", { type: "button", class: "action", "data-type": action.type, onclick: () => void this.act(action) },
        action.label ?? `${action.type}: ${action.option}`);
    fill(this.parts.decision,
      h("h2", { id: "decision-title", tabindex: -1 }, title),
      decision && view.status === "active" ? h("p", { class: "prompt" }, sentence(decision.prompt)) : null,
      h("p", { class: "message", role: "alert" }, this.trouble || this.message),
      main.length ? h("div", { class: "actions", id: "actions", role: "group", "aria-label": "Your legal actions" }, main.map(button)) : null,
      companions.length
        ? h("div", { class: "actions companions", role: "group", "aria-label": "Companion abilities" },
            h("p", { class: "muted" }, "Or first use a companion:"), companions.map(button))
        : null,
      mine && !ready ? h("p", { class: "muted" }, "Loading your actions…") : null,
      this.me === null && view.status === "active" ? h("p", { class: "muted" }, "Spectators see only what is public.") : null);
  }

  /** Add events to the log (newest first), once each. */
  addEvents(events: GameEvent[]): void {
    const fragment = document.createDocumentFragment();
    for (const event of events) {
      if (event.n <= this.lastEvent) continue;
      this.lastEvent = event.n;
      let text = describe(event, this.names, (s) => this.name(s));
      if (event.type === "answered" && typeof event.data.option === "string" && typeof event.data.decision === "string") {
        const label = this.labels.get(`${event.data.decision}\n${event.data.option}`);
        if (label) text = `${this.name(event.seat ?? 0)} chose: ${label}`;
      }
      fragment.prepend(h("li", { "data-n": event.n, class: event.private_to === null ? "" : "private" },
        sentence(text),
        event.private_to === null ? null : h("span", { class: "muted" }, " (only you see this)")));
    }
    this.logList.prepend(fragment);
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
          params: { path: { game_id: this.gameId }, header: { "Last-Event-ID": this.lastEvent } },
          parseAs: "stream",
        });
        if (response.status === 204) {
          this.setLink("over");
          return;
        }
        if (!response.ok || !data) {
          const problem = new ApiError(response.status, asProblem(error));
          if (response.status !== 503) {
            this.trouble = `Cannot follow the game: ${problem.message}`;
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

/** The seat and token of a seat's link (#seat=N&token=T); none: a spectator. */
export function seatOf(hash: string): { seat: number | null; token: string | undefined } {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const token = params.get("token") ?? undefined;
  const seat = Number(params.get("seat"));
  return token && Number.isInteger(seat) && seat >= 0 && seat <= 3 ? { seat, token } : { seat: null, token: undefined };
}

export async function tablePage(root: HTMLElement, gameId: string): Promise<void> {
  const { data: catalog, error, response } = await api().GET("/v1/catalog");
  if (!catalog) throw new ApiError(response.status, asProblem(error));
  const { seat, token } = seatOf(window.location.hash);
  const table = new Table(root, gameId, new Names(catalog), seat, token);
  table.render();
  table.refresh();
  // Another seat's link pasted into this tab: become that seat.
  window.addEventListener("hashchange", () => {
    const next = seatOf(window.location.hash);
    if (next.seat !== seat || next.token !== token) window.location.reload();
  });
  void table.follow();
}
