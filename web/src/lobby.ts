// The lobby in the page: the listed games waiting for players (GET /v1/games?status=waiting),
// joining an open seat under a name (POST .../seats/{seat}/join: its token is handed over only
// once, and the page goes straight to the table as that seat), and seats in words.
import { api, ApiError, asProblem, type JoinedSeat, type SeatView, type WaitingGame } from "./api";
import { fill, h, joined } from "./dom";
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
      return "open";
    case "bot":
      return `${seat.name ?? names.bot(seat.bot ?? "")} (bot)`;
    case "private_concern":
      return "the Private Concern";
    default:
      return seat.name ?? `Player ${seat.seat + 1}`;
  }
}

/** Words for a join the server refused. */
export function joinRefusal(error: ApiError, seat: number): string {
  switch (error.type) {
    case "seat-taken":
      return `Someone else took seat ${seat + 1} first: choose another open seat.`;
    case "unknown-game":
      return "That game is no longer there (it started, or expired).";
    case "game-finished":
      return "That game is over.";
    case "rate-limited":
      return "Too many new seats from here just now: try again in a minute.";
    default:
      return error.status === 422 || error.status === 400
        ? `That name will not do: ${error.problem?.detail ?? error.message}`
        : `The server refused: ${error.message}`;
  }
}

async function join(game: string, seat: number, name: string): Promise<JoinedSeat> {
  const { data, error, response } = await api().POST("/v1/games/{game_id}/seats/{seat}/join", {
    params: { path: { game_id: game, seat } },
    body: { name },
  });
  if (!data) throw new ApiError(response.status, asProblem(error));
  return data;
}

/** A form that joins ``seat`` under the name typed, then opens the table as that seat;
 * ``refused`` hears why not. */
export function joinForm(game: string, seat: number, refused: (why: string) => void): HTMLFormElement {
  const id = `join-${game}-${seat}`;
  const input = h("input", {
    id, name: "name", type: "text", required: true, maxlength: 32, autocomplete: "nickname",
    placeholder: "your name", class: "name",
  });
  const button = h("button", { type: "submit", class: "primary" }, `Join seat ${seat + 1}`);
  const form = h("form", { class: "join", "data-seat": seat, "aria-label": `Join seat ${seat + 1}` },
    h("label", { for: id }, `Your name for seat ${seat + 1} `), input, " ", button);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (!name) {
      refused("Type a name first: the other players see it.");
      input.focus();
      return;
    }
    button.setAttribute("disabled", "");
    join(game, seat, name).then(
      (joined) => window.location.assign(seatLink(game, joined.seat, joined.token)),
      (error: unknown) => {
        button.removeAttribute("disabled");
        refused(error instanceof ApiError ? joinRefusal(error, seat) : `The join may not have reached the server: ${String(error)}`);
      },
    );
  });
  return form;
}

/** The section of /play listing the listed games waiting for players, with a join form per
 * open seat (a button first, then the name). Refreshed by its button and after a refusal. */
export function waitingGames(names: Names): HTMLElement {
  const message = h("p", { class: "message", role: "alert", "aria-live": "assertive" });
  const list = h("ul", { class: "plain waiting-list", "aria-label": "Games waiting for players" });
  const section = h("section", { class: "waiting", id: "waiting", "aria-labelledby": "waiting-title", "data-state": "loading" },
    h("h2", { id: "waiting-title" }, "Join a game"),
    h("p", { class: "muted" }, "Games waiting for players, newest first."),
    list, message);
  const refresh = h("button", { type: "button", class: "refresh" }, "Refresh the list");
  section.append(refresh);

  const load = async (why = ""): Promise<void> => {
    section.dataset.state = "loading";
    message.textContent = why;
    const { data, error, response } = await api().GET("/v1/games", { params: { query: { status: "waiting", limit: 20 } } });
    if (!data) {
      message.textContent = `Cannot list the waiting games: ${new ApiError(response.status, asProblem(error)).message}`;
    } else {
      fill(list, data.games.length ? data.games.map((game) => waitingGame(game, names, (text) => void load(text)))
        : h("li", { class: "muted" }, "No game is waiting for players: set one up below."));
    }
    section.dataset.state = "ready";
  };
  refresh.addEventListener("click", () => void load());
  void load();
  return section;
}

function waitingGame(game: WaitingGame, names: Names, refused: (why: string) => void): HTMLElement {
  const slot = h("div", { class: "join-slot" });
  const open = (seat: number) => {
    fill(slot, joinForm(game.id, seat, refused));
    slot.querySelector("input")?.focus();
  };
  const config = game.config;
  const variants = Object.entries(config.variants).filter(([, on]) => on).map(([name]) => name.replace(/_/g, " "));
  return h("li", { class: "waiting-game", "data-game": game.id },
    h("p", null,
      h("strong", null, `${game.players} players`), " · ",
      joined(game.seats.map((seat) => h("span", { class: `seat-${seat.kind}` }, `${seat.seat + 1}: ${seatWords(seat, names)}`)), ", "),
      game.turn_timeout ? h("span", { class: "muted" }, ` · ${game.turn_timeout} s per decision`) : null),
    h("p", { class: "muted" },
      `Buildings: ${config.buildings.map((b) => names.component(b)).join(", ")}`,
      variants.length ? ` · ${variants.join(", ")}` : "",
      ` · game ${game.id.slice(0, 8)}…`),
    h("div", { class: "actions" },
      game.open_seats.map((seat) => h("button", { type: "button", class: "join-seat", "data-seat": seat, onclick: () => open(seat) },
        `Join seat ${seat + 1}`))),
    slot);
}
