// GET /play: join a listed game waiting for players, or set up a game (seats: a player with a
// link, an open seat anyone may join, or a bot; buildings, variants), create it, and hand out one
// link per seat.
import { api, ApiError, asProblem, type Catalog, type CreatedGame, type NewGame, type NewSeat } from "./api";
import { fill, h, type Child } from "./dom";
import { joinLink, seatLink, timeoutWords, waitingGames } from "./lobby";
import { t } from "./i18n";
import { Names } from "./names";

const MAX_SEATS = 4;
/** The longest turn timeout the API takes (NewGame.turn_timeout: 30 days), in seconds. */
const MAX_TURN_TIMEOUT = 30 * 24 * 3600;
/** The units the turn timeout may be given in, in seconds. */
const TIMEOUT_UNITS: [string, () => string, number][] = [["s", () => t("seconds"), 1], ["min", () => t("minutes"), 60], ["h", () => t("hours"), 3600]];
/** The bot NewGame.timeout_bot defaults to (the document says so): preselected when installed. */
const DEFAULT_TIMEOUT_BOT = "search";

export async function setupPage(root: HTMLElement): Promise<void> {
  document.title = t("darkroad: set up a game");
  const skip = document.querySelector(".skip");
  if (skip) skip.textContent = t("Skip to the setup");
  const { data: catalog, error, response } = await api().GET("/v1/catalog");
  if (!catalog) throw new ApiError(response.status, asProblem(error));
  const names = new Names(catalog);
  const message = h("p", { class: "message", role: "alert", "aria-live": "assertive" });
  const links = h("section", { class: "links", "aria-label": t("Links to the game"), hidden: true });
  const form = setupForm(catalog, names);
  const sync = () => {
    const data = new FormData(form);
    const chooser = form.querySelector<HTMLElement>("#choose-buildings");
    if (chooser) chooser.hidden = data.get("buildings") !== "choose";
    const players = Number(data.get("players"));
    const concern = form.querySelector<HTMLInputElement>("#private_concern-yes");
    if (concern) concern.disabled = players < 3;
    // One row per seat the Private Concern does not take; a name for a player's seat, a bot's choice for a bot's.
    const seats = seatCount(players, data.get("private_concern") !== null);
    let open = false;
    for (let seat = 0; seat < MAX_SEATS; seat++) {
      const row = form.querySelector<HTMLElement>(`.seat-row[data-seat="${seat}"]`);
      if (!row) continue;
      row.hidden = seat >= seats;
      const kind = data.get(`seat-${seat}-kind`);
      open ||= seat < seats && kind === "open";
      row.querySelector<HTMLElement>(".seat-name")?.toggleAttribute("hidden", kind !== "human");
      row.querySelector<HTMLElement>(".seat-bot")?.toggleAttribute("hidden", kind !== "bot");
    }
    const listed = form.querySelector<HTMLInputElement>("#listed-yes");
    if (listed) listed.disabled = !open;
    // The timeout's bounds in the unit chosen; the bot that takes over only with a timeout.
    const timeout = form.querySelector<HTMLInputElement>("#turn_timeout");
    if (timeout) timeout.max = String(Math.floor(MAX_TURN_TIMEOUT / unitSeconds(data.get("turn_timeout_unit"))));
    const bot = form.querySelector<HTMLElement>(".timeout-bot");
    if (bot) bot.hidden = String(data.get("turn_timeout") ?? "").trim() === "";
  };
  form.addEventListener("change", sync);
  form.addEventListener("input", sync);
  sync();

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    message.textContent = "";
    let body: NewGame;
    try {
      body = readForm(form);
    } catch (problem) {
      message.textContent = problem instanceof Error ? problem.message : String(problem);
      return;
    }
    const submit = form.querySelector("button[type=submit]");
    submit?.setAttribute("disabled", "");
    void create(body)
      .then((created) => {
        // One player against bots (or the Private Concern): nobody to hand a link to, so the
        // table opens at once, as that player's seat (its link, the token after the #).
        const players = created.seats.filter((seat) => seat.token || seat.kind === "open");
        const only = players.length === 1 ? players[0] : undefined;
        if (only?.token) {
          window.location.assign(seatLink(created.id, only.seat, only.token));
          return;
        }
        showLinks(links, created, names, body);
        links.hidden = false;
        links.scrollIntoView({ block: "start" });
        links.querySelector<HTMLElement>("h2")?.focus({ preventScroll: true });
      })
      .catch((problem: unknown) => {
        message.textContent = problem instanceof Error ? problem.message : String(problem);
      })
      .finally(() => submit?.removeAttribute("disabled"));
  });

  fill(
    root,
    h("header", { class: "top" },
      h("h1", null, "darkroad"),
      h("p", null, t("Merchants of the Dark Road, played through the darkroad API: set up a game, then hand each player their link."))),
    h("div", { class: "setup" }, waitingGames(names),
      h("h2", { class: "setup-title" }, t("Set up a game")), form, message, links),
    h("footer", null, h("a", { href: "/docs" }, t("API reference")), " · ", h("a", { href: "/" }, "darkroad")),
  );
  root.dataset.state = "ready";
  root.removeAttribute("aria-busy");
}

function radio(name: string, value: string, label: Child, checked = false, hint?: string): HTMLElement {
  const id = `${name}-${value}`;
  return h("div", { class: "choice" },
    h("input", { type: "radio", name, value, id, checked }),
    h("label", { for: id }, label, hint ? h("small", null, ` ${hint}`) : null));
}

function checkbox(name: string, value: string, label: Child, hint?: string, checked = false): HTMLElement {
  const id = `${name}-${value}`;
  return h("div", { class: "choice" },
    h("input", { type: "checkbox", name, value, id, checked }),
    h("label", { for: id }, label, hint ? h("small", null, ` ${hint}`) : null));
}

/** The seats of ``players`` that are not the Private Concern's. */
function seatCount(players: number, privateConcern: boolean): number {
  return players === 1 ? 1 : privateConcern && players >= 3 ? players - 1 : players;
}

function seatRow(seat: number, catalog: Catalog): HTMLElement {
  const id = (part: string) => `seat-${seat}-${part}`;
  const bots = catalog.bots;
  return h("div", { class: "seat-row", "data-seat": seat },
    h("label", { for: id("kind"), class: "seat-label" }, t("Seat %(number)s", { number: seat + 1 })),
    h("select", { id: id("kind"), name: id("kind") },
      h("option", { value: "human", selected: true }, t("a player with a link")),
      h("option", { value: "open" }, t("open: anyone may join")),
      bots.length ? h("option", { value: "bot" }, t("a bot")) : null),
    h("span", { class: "seat-name" },
      h("label", { for: id("name") }, t("name"), " "),
      h("input", { id: id("name"), name: id("name"), type: "text", maxlength: 32, placeholder: t("Player %(number)s", { number: seat + 1 }), class: "name" })),
    h("span", { class: "seat-bot" },
      h("label", { for: id("bot") }, t("bot"), " "),
      h("select", { id: id("bot"), name: id("bot") },
        bots.map((bot, i) => h("option", { value: bot.id, selected: i === 0, title: bot.text }, bot.name)))));
}

function unitSeconds(unit: FormDataEntryValue | null): number {
  return TIMEOUT_UNITS.find(([id]) => id === unit)?.[2] ?? 1;
}

/** The turn timeout (none, or a number of seconds, minutes or hours) and, with one, the
 * installed bot that takes over a seat awaited longer. */
function timeoutChoice(catalog: Catalog): HTMLElement[] {
  const bots = catalog.bots;
  const preselected = bots.some((bot) => bot.id === DEFAULT_TIMEOUT_BOT) ? DEFAULT_TIMEOUT_BOT : bots[0]?.id;
  return [
    h("div", { class: "choice timeout" },
      h("label", { for: "turn_timeout" }, t("Time a player may take to decide")),
      h("input", { id: "turn_timeout", name: "turn_timeout", type: "number", min: 1, max: MAX_TURN_TIMEOUT, step: 1,
        inputmode: "numeric", placeholder: t("no limit"), "aria-describedby": "turn_timeout-hint" }),
      h("label", { for: "turn_timeout_unit", class: "visually-hidden" }, t("Unit of the time a player may take")),
      h("select", { id: "turn_timeout_unit", name: "turn_timeout_unit" },
        TIMEOUT_UNITS.map(([id, words]) => h("option", { value: id, selected: id === "min" }, words()))),
      h("small", { id: "turn_timeout-hint" }, t("(empty: no limit; after it, another player may hand the awaited seat to a bot until its player takes it back)"))),
    h("div", { class: "choice timeout-bot", hidden: true },
      h("label", { for: "timeout_bot" }, t("The bot that then plays the seat")),
      h("select", { id: "timeout_bot", name: "timeout_bot" },
        bots.map((bot) => h("option", { value: bot.id, selected: bot.id === preselected, title: bot.text },
          bot.id === DEFAULT_TIMEOUT_BOT ? t("%(bot)s (the default)", { bot: bot.name }) : bot.name)))),
  ];
}

function setupForm(catalog: Catalog, names: Names): HTMLFormElement {
  const buildings = catalog.components.building;
  const firstGame = buildings.filter((b) => b.data.first_game).map((b) => b.name);
  const fanCompanions = catalog.components.companion.filter((c) => !c.builtin);
  const fan = (plugin: string, builtin: boolean) => (builtin ? "" : " " + t("(fan plugin %(plugin)s)", { plugin }));
  const chooser = h("fieldset", { class: "buildings-choice", id: "choose-buildings" },
    h("legend", null, t("Choose 4 buildings (at most one side of each tile)")),
    buildings.map((b) =>
      checkbox("building", b.id, [h("strong", null, b.name), fan(b.plugin, b.builtin)], b.data.tile === undefined ? b.text : t("%(text)s (tile %(tile)s)", { text: b.text, tile: b.data.tile }))));

  return h("form", { class: "setup-form", "aria-label": t("Set up a game") },
    h("fieldset", null,
      h("legend", null, t("Players")),
      radio("players", "1", "1", false, t("solo, against the Private Concern")),
      radio("players", "2", "2", true),
      radio("players", "3", "3"),
      radio("players", "4", "4"),
      checkbox("private_concern", "yes", t("The Private Concern takes the last seat"), t("(3 or 4 players: it plays itself)"))),
    h("fieldset", { class: "seats" },
      h("legend", null, t("Seats")),
      Array.from({ length: MAX_SEATS }, (_, seat) => seatRow(seat, catalog)),
      checkbox("listed", "yes", t("List the game under \u201cJoin a game\u201d while a seat is open"), t("(else only those you give the join link find it)"), true),
      timeoutChoice(catalog)),
    h("fieldset", null,
      h("legend", null, t("Buildings")),
      radio("buildings", "first", t("The first game's"), true, firstGame.join(", ")),
      radio("buildings", "random", t("Four at random")),
      radio("buildings", "choose", t("Let me choose")),
      chooser),
    h("fieldset", null,
      h("legend", null, t("Variants")),
      checkbox("drafting", "yes", t("Drafting"), t("(steeds and starting heroes are drafted)")),
      checkbox("advanced_deeds", "yes", t("Advanced deeds"), t("(draw 2 deeds, keep 1)"))),
    fanCompanions.length
      ? h("fieldset", null,
          h("legend", null, t("Fan companions to shuffle into the companion deck")),
          fanCompanions.map((c) => checkbox("companion", c.id, [h("strong", null, c.name), fan(c.plugin, false)], c.text)))
      : null,
    h("fieldset", null,
      h("legend", null, t("Seed")),
      h("label", { for: "seed" }, t("Seed of the game's dice and decks (leave empty for a random one)"), " "),
      h("input", { id: "seed", name: "seed", type: "number", min: 0, inputmode: "numeric" })),
    h("button", { type: "submit", class: "primary" }, t("Create the game")),
    h("p", { class: "hint" }, t("Components: %(count)s from the installed plugins.", { count: names.components.size })),
  );
}

function readForm(form: HTMLFormElement): NewGame {
  const data = new FormData(form);
  const players = Number(data.get("players") ?? 2);
  const body: NewGame = { players };
  if (data.get("private_concern") && players >= 3) body.private_concern = true;
  const seats: NewSeat[] = [];
  for (let seat = 0; seat < seatCount(players, body.private_concern === true); seat++) {
    const kind = String(data.get(`seat-${seat}-kind`) ?? "human");
    const name = String(data.get(`seat-${seat}-name`) ?? "").trim();
    // The committed document enumerates the base installation's bots; the choices come from this server's catalogue.
    // A bot seat is named as the page shows the bot (in its language), as a player's seat by
    // the name typed: the table shows that name to everyone, whatever their language.
    const shown = form.querySelector<HTMLSelectElement>(`#seat-${seat}-bot`)?.selectedOptions[0]?.textContent?.trim();
    if (kind === "bot") seats.push({ kind: "bot", bot: String(data.get(`seat-${seat}-bot`)) as "greedy", ...(shown ? { name: shown } : {}) });
    else if (kind === "open") seats.push({ kind: "open" });
    else seats.push(name ? { kind: "human", name } : { kind: "human" });
  }
  body.seats = seats;
  if (seats.some((seat) => seat.kind === "open")) body.listed = data.get("listed") !== null;
  const timeout = String(data.get("turn_timeout") ?? "").trim();
  if (timeout !== "") {
    const seconds = Number(timeout) * unitSeconds(data.get("turn_timeout_unit"));
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_TURN_TIMEOUT) {
      throw new Error(t("The time a player may take is a whole number, from 1 second to 30 days (720 hours)."));
    }
    body.turn_timeout = seconds;
    // The committed document enumerates the base installation's bots; the choices come from this server's catalogue.
    const bot = data.get("timeout_bot");
    if (bot !== null) body.timeout_bot = String(bot) as "greedy";
  }
  const buildings = data.get("buildings");
  if (buildings === "random") body.random_buildings = true;
  if (buildings === "choose") {
    const chosen = data.getAll("building").map(String);
    if (chosen.length !== 4) throw new Error(t("Choose exactly 4 buildings (%(count)s chosen).", { count: chosen.length }));
    // The committed document enumerates the base installation's ids; this server's catalogue
    // (where the choices come from) also names its fan plugins' components.
    body.buildings = chosen as NewGame["buildings"];
  }
  body.variants = { drafting: data.get("drafting") !== null, advanced_deeds: data.get("advanced_deeds") !== null };
  const companions = data.getAll("companion").map(String);
  if (companions.length) body.companions = companions as NewGame["companions"];
  const seed = String(data.get("seed") ?? "").trim();
  if (seed !== "") body.seed = Number(seed);
  return body;
}

async function create(body: NewGame): Promise<CreatedGame> {
  const { data, error, response } = await api().POST("/v1/games", { body });
  if (!data) throw new ApiError(response.status, asProblem(error));
  return data;
}

function showLinks(section: HTMLElement, created: CreatedGame, names: Names, body: NewGame): void {
  const spectator = `${window.location.origin}/play/${created.id}`;
  fill(section,
    h("h2", { tabindex: -1 }, t("The game is ready")),
    h("p", null, t("Hand each player their own link: it carries the seat's secret token (after the #, so it never reaches the server's logs). This page will not show the tokens again.")),
    created.status === "waiting"
      ? h("p", null, t("The game starts when every open seat is joined: give the join link to whoever you like (anyone holding it may take the seat)."))
      : null,
    body.turn_timeout === undefined ? null
      : h("p", { class: "timeout-words" }, timeoutWords(body.turn_timeout, body.timeout_bot ?? DEFAULT_TIMEOUT_BOT, names)),
    h("ul", { class: "seat-links" },
      created.seats.map((seat) =>
        h("li", { "data-seat": seat.seat, "data-kind": seat.kind },
          h("strong", null, seat.name ?? t("Player %(number)s", { number: seat.seat + 1 })),
          seat.token
            ? [": ", h("a", { href: seatLink(created.id, seat.seat, seat.token), class: "seat-link", target: "_blank", rel: "noopener" }, t("open the table as this seat")),
               " ", copyButton(seatLink(created.id, seat.seat, seat.token))]
            : seat.kind === "open"
              ? [": ", t("open"), ", ", h("a", { href: joinLink(created.id, seat.seat), class: "join-link", target: "_blank", rel: "noopener" }, t("the link to join it")),
                 " ", copyButton(joinLink(created.id, seat.seat))]
              : seat.kind === "bot"
                ? ": " + t("the bot %(bot)s plays it.", { bot: names.bot(seat.bot ?? "") })
                : ": " + t("the Private Concern plays itself."))),
      h("li", null, h("strong", null, t("Spectators")), ": ",
        h("a", { href: spectator, class: "spectator-link" }, spectator), " ", copyButton(spectator))));
}

function copyButton(text: string): HTMLElement {
  const button = h("button", { type: "button", class: "copy" }, t("Copy link"));
  button.addEventListener("click", () => {
    void navigator.clipboard?.writeText(text).then(
      () => (button.textContent = t("Copied")),
      () => (button.textContent = t("Copy failed: select the link")),
    );
  });
  return button;
}
