// The lobby in the page: the listed games waiting for players (GET /v1/games?status=waiting),
// joining an open seat under a name (POST .../seats/{seat}/join: its token is handed over only
// once, and the page goes straight to the table as that seat), and seats in words.
import { api, ApiError, asProblem, idempotencyKey, sleep, type JoinedSeat, type SeatView, type WaitingGame } from "./api";
import { fill, h, joined } from "./dom";
import { language, t, tn } from "./i18n";
import type { Names } from "./names";

/** The table as ``seat`` (its token after the #, so it never reaches the server's logs). */
export function seatLink(game: string, seat: number, token: string): string {
  const fragment = new URLSearchParams({ seat: String(seat), token });
  return `${window.location.origin}/play/${game}#${fragment.toString()}`;
}

/** The waiting room of a game, where ``seat`` (open) may be joined. */
export function joinLink(game: string, seat: number): string {
  return `${window.location.origin}/play/${game}#join=${seat}`;
}

/** Who sits in ``seat``, in words ("Ann", "Greedy (bot)", "open"). */
export function seatWords(seat: SeatView, names: Names): string {
  switch (seat.kind) {
    case "open":
      return t("open");
    case "bot":
      return t("%(name)s (bot)", { name: seat.name ?? names.bot(seat.bot ?? "") });
    case "private_concern":
      return t("the Private Concern");
    default:
      return seat.name ?? t("Player %(number)s", { number: seat.seat + 1 });
  }
}

/** ``seconds`` in words: "45 s", "2 min", "1 h 30 min", "30 d". */
export function duration(seconds: number): string {
  const parts: string[] = [];
  let left = seconds;
  const units: [number, (n: number) => string][] = [[86400, (n) => t("%(num)s d", { num: n })], [3600, (n) => t("%(num)s h", { num: n })],
    [60, (n) => t("%(num)s min", { num: n })], [1, (n) => t("%(num)s s", { num: n })]];
  for (const [size, unit] of units) {
    const count = Math.floor(left / size);
    if (count > 0) parts.push(unit(count));
    left -= count * size;
  }
  return parts.join(" ") || t("%(num)s s", { num: 0 });
}

/** What a game's turn timeout means, in words. */
export function timeoutWords(seconds: number, bot: string | null, names: Names): string {
  return t("Each decision may take %(time)s; then another player may hand the seat to the bot %(bot)s until its player takes it back.",
    { time: duration(seconds), bot: names.bot(bot ?? "") });
}

/** Words for a join the server refused. */
export function joinRefusal(error: ApiError, seat: number): string {
  switch (error.type) {
    case "seat-taken":
      return t("Someone else took seat %(number)s first: choose another open seat.", { number: seat + 1 });
    case "unknown-game":
      return t("That game is no longer there (it started, or expired).");
    case "game-finished":
      return t("That game is over.");
    case "rate-limited":
      return t("Too many new seats from here just now: try again in a minute.");
    case "idempotency-key-reused":
      return t("Seat %(number)s was left since this join was sent: join again.", { number: seat + 1 });
    default:
      return error.status === 422 || error.status === 400
        ? t("That name will not do: %(reason)s", { reason: error.problem?.detail ?? error.message })
        : t("The server refused: %(reason)s", { reason: error.message });
  }
}

/** The variants' names, as the setup page words them. */
const VARIANTS: Record<string, () => string> = { drafting: () => t("Drafting"), advanced_deeds: () => t("Advanced deeds") };

/** How many times one join is sent at most (the first time and the retries). */
const JOIN_TRIES = 5;
/** Answers after which the join may or may not have been written: sent again, same key. */
const JOIN_RETRIED = new Set([408, 503, 504]);

/** The join could not be confirmed: no answer came through after JOIN_TRIES sends. */
class JoinLost extends Error {}

/** Join ``seat`` under ``name`` with the Idempotency-Key ``key``. An answer that is lost (the
 * connection dropped: the join may have been written all the same) or a 503 (the store is
 * unavailable, or the join is written but not yet confirmed by its replicas), 408 or 504 is
 * retried with the same key and name, after the Retry-After given, else after 0.5, 1, 2, 4 s:
 * the server answers a join it already made with the same seat and a fresh token (the lost
 * one plays nothing). ``trying`` hears of each retry; any other refusal ends it (ApiError). */
async function join(game: string, seat: number, name: string, key: string,
  trying: (why: string) => void): Promise<JoinedSeat> {
  for (let attempt = 1; ; attempt++) {
    let pause = 500 * 2 ** (attempt - 1);
    let why: string;
    try {
      const { data, error, response } = await api().POST("/v1/games/{game_id}/seats/{seat}/join", {
        params: { path: { game_id: game, seat }, header: { "Idempotency-Key": key } },
        body: { name },
      });
      if (data) return data;
      const refusal = new ApiError(response.status, asProblem(error));
      if (!JOIN_RETRIED.has(response.status)) throw refusal;
      const wait = retryAfter(response.headers.get("Retry-After"));
      if (!Number.isNaN(wait)) pause = wait;
      why = t("the server could not answer (%(reason)s)", { reason: refusal.message });
    } catch (lost) {
      if (lost instanceof ApiError) throw lost;
      why = t("the answer was lost on the way");
    }
    if (attempt >= JOIN_TRIES) throw new JoinLost(why);
    trying(t("Joining seat %(number)s: %(why)s; trying again (%(attempt)s of %(tries)s)…",
      { number: seat + 1, why, attempt: attempt + 1, tries: JOIN_TRIES }));
    await sleep(pause);
  }
}

/** A form that joins ``seat`` under the name typed, then opens the table as that seat;
 * ``refused`` hears why not. */
export function joinForm(game: string, seat: number, refused: (why: string) => void): HTMLFormElement {
  const id = `join-${game}-${seat}`;
  const input = h("input", {
    id, name: "name", type: "text", required: true, maxlength: 32, autocomplete: "nickname",
    placeholder: t("your name"), class: "name",
  });
  const button = h("button", { type: "submit", class: "primary" }, t("Join seat %(number)s", { number: seat + 1 }));
  const status = h("span", { class: "muted join-status", role: "status" });
  const form = h("form", { class: "join", "data-seat": seat, "aria-label": t("Join seat %(number)s", { number: seat + 1 }) },
    h("label", { for: id }, t("Your name for seat %(number)s", { number: seat + 1 }), " "), input, " ", button, " ", status);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (!name) {
      refused(t("Type a name first: the other players see it."));
      input.focus();
      return;
    }
    if (form.getAttribute("aria-busy") === "true") return;
    const key = idempotencyKey(); // a fresh random one per join (its retries send it again)
    button.setAttribute("disabled", "");
    form.setAttribute("aria-busy", "true");
    const done = () => {
      button.removeAttribute("disabled");
      form.removeAttribute("aria-busy");
      status.textContent = "";
    };
    join(game, seat, name, key, (why) => (status.textContent = why)).then(
      (joined) => {
        done();
        window.location.assign(seatLink(game, joined.seat, joined.token));
      },
      (error: unknown) => {
        done();
        refused(error instanceof ApiError ? joinRefusal(error, seat)
          : t("Seat %(number)s could not be joined: %(reason)s (%(tries)s tries). Check your connection and try again.",
            { number: seat + 1, reason: error instanceof Error ? error.message : String(error), tries: JOIN_TRIES }));
      },
    );
  });
  return form;
}

/** How often the list asks again while the page is visible (ms). */
const POLL = 5000;
/** The longest pause between two asks after failures without a Retry-After (ms). */
const MAX_PAUSE = 60_000;

/** The pause after ``failures`` failed asks in a row with no Retry-After: 10, 20, 40, 60, 60… s. */
function backOff(failures: number): number {
  return Math.min(POLL * 2 ** failures, MAX_PAUSE);
}

/** A Retry-After header in ms (delta-seconds or an HTTP-date); NaN when absent or unreadable. */
export function retryAfter(header: string | null, now = Date.now()): number {
  const text = header?.trim() ?? "";
  if (text === "") return NaN;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? NaN : Math.max(0, date - now);
}

/** The section of /play listing the listed games waiting for players, with a join form per
 * open seat (a button first, then the name). It follows the lobby while the page is visible
 * (see below), and is refreshed at once by its button and after a refused join. */
export function waitingGames(names: Names): HTMLElement {
  const message = h("p", { class: "message", role: "alert", "aria-live": "assertive" });
  const list = h("ul", { class: "plain waiting-list", "aria-label": t("Games waiting for players") });
  const section = h("section", { class: "waiting", id: "waiting", "aria-labelledby": "waiting-title", "data-state": "loading" },
    h("h2", { id: "waiting-title" }, t("Join a game")),
    h("p", { class: "muted" }, t("Games waiting for players, newest first, kept up to date while this page is open.")),
    list, message);
  const refresh = h("button", { type: "button", class: "refresh" }, t("Refresh the list"));
  section.append(refresh);
  const none = h("li", { class: "muted" }, t("No game is waiting for players: set one up below."));
  const listed = new Map<string, Listed>();

  /** Show ``games`` (newest first), keeping the item of every game still listed in place, so
   * that a join form being filled in keeps its name and the focus; what a poll took away from
   * under an open join form is said in ``notes``. */
  const update = (games: WaitingGame[], notes: string[]): void => {
    const ids = new Set(games.map((game) => game.id));
    for (const [id, item] of listed) {
      if (ids.has(id)) continue;
      if (item.joining !== null) notes.push(t("Game %(game)s… is no longer waiting for players (it started, or expired).", { game: id.slice(0, 8) }));
      item.element.remove();
      listed.delete(id);
    }
    if (!games.length) {
      fill(list, none);
      return;
    }
    none.remove();
    games.forEach((game, i) => {
      let item = listed.get(game.id);
      if (item === undefined) {
        item = new Listed(game, names, (text) => void load(text));
        listed.set(game.id, item);
      } else {
        const seat = item.joining;
        if (!item.show(game) && seat !== null) {
          notes.push(t("Seat %(number)s of game %(game)s… was taken meanwhile: choose another open seat.", { number: seat + 1, game: game.id.slice(0, 8) }));
        }
      }
      const here = list.children[i] ?? null;
      if (here !== item.element) list.insertBefore(item.element, here);
    });
  };

  // Polling, where the table follows its game's event stream: the API streams the events of
  // one game (GET /v1/games/{id}/stream) but has no stream of the lobby as a whole, so the list
  // asks GET /v1/games?status=waiting again every POLL ms, only while the page is visible (a
  // background tab asks nothing, and catches up when shown again), and waits longer after a
  // failure: at least as long as a 429 or 503 says (Retry-After), else doubling from 2 POLL up
  // to MAX_PAUSE. Meanwhile the list stays as it was (a join form keeps its name and focus) and
  // the message says when it asks again; a Refresh before a Retry-After has passed asks nothing.
  let asked = 0; // the number of the newest ask: an older answer arriving late is dropped
  let failures = 0; // failed asks in a row
  let due = 0; // when the next ask is due (ms since the epoch)
  let notBefore = 0; // until when the server asked for quiet (Retry-After)
  let timer: number | undefined;
  let troubled = false; // the message says that the last ask failed

  const schedule = (pause: number): void => {
    window.clearTimeout(timer);
    due = Date.now() + pause;
    if (document.visibilityState !== "hidden") timer = window.setTimeout(() => void load(), pause);
  };
  document.addEventListener("visibilitychange", () => {
    window.clearTimeout(timer);
    if (document.visibilityState !== "hidden") timer = window.setTimeout(() => void load(), Math.max(0, due - Date.now()));
  });
  /** ``why``, then when the list asks again (a <time> for assistive technology and tests). */
  const paused = (why: string): void => {
    const at = new Date(due);
    // The time's element in the sentence where the translation puts it.
    const [before = "", after = ""] = t("%(why)s The list is paused: it asks again at %(time)s.", { why }).split("%(time)s");
    fill(message, before, h("time", { datetime: at.toISOString() }, at.toLocaleTimeString(language)), after);
    section.dataset.state = "paused";
    troubled = true;
  };

  /** Ask for the list: by hand (the first time, the button, after a refused join) with ``why``
   * as the message, or by the poll without it. */
  const load = async (why?: string): Promise<void> => {
    if (why !== undefined && Date.now() < notBefore) {
      // The server asked for quiet until then: the poll asks at once when it is over.
      paused(why || t("The server asked this page to wait before asking again."));
      return;
    }
    const ask = ++asked;
    window.clearTimeout(timer);
    if (why !== undefined) {
      section.dataset.state = "loading";
      message.textContent = why;
      troubled = false;
    }
    list.setAttribute("aria-busy", "true");
    let pause = POLL;
    let trouble = "";
    try {
      const { data, error, response } = await api().GET("/v1/games", { params: { query: { status: "waiting", limit: 20 } } });
      if (ask !== asked) return;
      if (data) {
        failures = 0;
        const notes: string[] = [];
        update(data.games, notes);
        if (notes.length && why === undefined) message.textContent = notes.join(" ");
        else if (troubled) message.textContent = "";
        troubled = false;
      } else {
        failures += 1;
        pause = backOff(failures);
        const wait = response.status === 429 || response.status === 503 ? retryAfter(response.headers.get("Retry-After")) : NaN;
        if (!Number.isNaN(wait)) {
          // As long as the server says (however often it says so), never sooner than the poll.
          pause = Math.max(POLL, wait);
          notBefore = Date.now() + wait;
        }
        const problem = new ApiError(response.status, asProblem(error));
        trouble = response.status === 429 ? t("The server has had too many requests from here just now.")
          : response.status === 503 ? t("The server is unavailable just now (%(reason)s).", { reason: problem.message })
            : t("Cannot list the waiting games: %(reason)s.", { reason: problem.message });
      }
    } catch (error) {
      if (ask !== asked) return;
      failures += 1;
      pause = backOff(failures);
      trouble = t("Cannot reach the server to list the waiting games (%(reason)s).", { reason: String(error) });
    } finally {
      if (ask === asked) list.removeAttribute("aria-busy");
    }
    schedule(pause);
    if (trouble) paused(trouble);
    else section.dataset.state = "ready";
  };
  refresh.addEventListener("click", () => void load(""));
  void load("");
  return section;
}

/** A listed game's item: redrawn in place when the game changed, its open join form (the
 * name typed, the focus) kept while its seat is still open. */
class Listed {
  readonly element: HTMLElement;
  /** The seat whose join form is open, if any. */
  joining: number | null = null;
  private readonly slot = h("div", { class: "join-slot" });
  private readonly id: string;
  private shown = "";

  constructor(game: WaitingGame, private readonly names: Names, private readonly refused: (why: string) => void) {
    this.id = game.id;
    this.element = h("li", { class: "waiting-game", "data-game": game.id }, this.slot);
    this.show(game);
  }

  /** Show ``game`` as it is now; false when the seat of the open join form was taken (the
   * form is then gone). */
  show(game: WaitingGame): boolean {
    const shown = JSON.stringify(game);
    if (shown === this.shown) return true;
    this.shown = shown;
    while (this.element.firstChild && this.element.firstChild !== this.slot) this.element.firstChild.remove();
    this.slot.before(...this.parts(game));
    // A join under way keeps its form: the seat it took may already show as taken.
    if (this.joining !== null && !game.open_seats.includes(this.joining) &&
        this.slot.querySelector("form[aria-busy=true]") === null) {
      fill(this.slot);
      this.joining = null;
      return false;
    }
    return true;
  }

  private open(seat: number): void {
    this.joining = seat;
    fill(this.slot, joinForm(this.id, seat, this.refused));
    this.slot.querySelector("input")?.focus();
  }

  private parts(game: WaitingGame): HTMLElement[] {
    const names = this.names;
    const config = game.config;
    const variants = Object.entries(config.variants).filter(([, on]) => on).map(([name]) => VARIANTS[name]?.() ?? name.replace(/_/g, " "));
    return [
      h("p", null,
        h("strong", null, tn("%(num)d player", "%(num)d players", game.players)), " · ",
        joined(game.seats.map((seat) => h("span", { class: `seat-${seat.kind}` }, `${seat.seat + 1}: ${seatWords(seat, names)}`)), ", "),
        game.turn_timeout
          ? h("span", { class: "muted timeout" }, " · " + t("%(time)s per decision, then the bot %(bot)s",
            { time: duration(game.turn_timeout), bot: names.bot(game.timeout_bot ?? "") }))
          : null),
      h("p", { class: "muted" },
        t("Buildings: %(buildings)s", { buildings: config.buildings.map((b) => names.component(b)).join(", ") }),
        variants.length ? ` · ${variants.join(", ")}` : "",
        " · " + t("game %(game)s…", { game: game.id.slice(0, 8) })),
      h("div", { class: "actions" },
        game.open_seats.map((seat) => h("button", { type: "button", class: "join-seat", "data-seat": seat, onclick: () => this.open(seat) },
          t("Join seat %(number)s", { number: seat + 1 })))),
    ];
  }
}
