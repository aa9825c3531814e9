// GET /play: set up a game (seats, buildings, variants), create it, hand out one link per seat.
import { api, ApiError, asProblem, type Catalog, type CreatedGame, type NewGame } from "./api";
import { fill, h, type Child } from "./dom";
import { Names } from "./names";

export async function setupPage(root: HTMLElement): Promise<void> {
  document.title = "darkroad: set up a game";
  const skip = document.querySelector(".skip");
  if (skip) skip.textContent = "Skip to the setup";
  const { data: catalog, error, response } = await api().GET("/v1/catalog");
  if (!catalog) throw new ApiError(response.status, asProblem(error));
  const names = new Names(catalog);
  const message = h("p", { class: "message", role: "alert", "aria-live": "assertive" });
  const links = h("section", { class: "links", "aria-label": "Links to the game", hidden: true });
  const form = setupForm(catalog, names);
  const sync = () => {
    const data = new FormData(form);
    const chooser = form.querySelector<HTMLElement>("#choose-buildings");
    if (chooser) chooser.hidden = data.get("buildings") !== "choose";
    const concern = form.querySelector<HTMLInputElement>("#private_concern-yes");
    if (concern) concern.disabled = Number(data.get("players")) < 3;
  };
  form.addEventListener("change", sync);
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
        showLinks(links, created);
        links.hidden = false;
        links.querySelector<HTMLElement>("h2")?.focus();
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
      h("p", null, "Merchants of the Dark Road, played through the darkroad API: set up a game, then hand each player their link.")),
    h("div", { class: "setup" }, form, message, links),
    h("footer", null, h("a", { href: "/docs" }, "API reference"), " · ", h("a", { href: "/" }, "darkroad")),
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

function setupForm(catalog: Catalog, names: Names): HTMLFormElement {
  const buildings = catalog.components.building;
  const firstGame = buildings.filter((b) => b.data.first_game).map((b) => b.name);
  const fanCompanions = catalog.components.companion.filter((c) => !c.builtin);
  const fan = (plugin: string, builtin: boolean) => (builtin ? "" : ` (fan plugin ${plugin})`);
  const chooser = h("fieldset", { class: "buildings-choice", id: "choose-buildings" },
    h("legend", null, "Choose 4 buildings (at most one side of each tile)"),
    buildings.map((b) =>
      checkbox("building", b.id, [h("strong", null, b.name), fan(b.plugin, b.builtin)], `${b.text}${b.data.tile === undefined ? "" : ` (tile ${b.data.tile})`}`)));

  return h("form", { class: "setup-form", "aria-label": "Set up a game" },
    h("fieldset", null,
      h("legend", null, "Players"),
      radio("players", "1", "1", false, "solo, against the Private Concern"),
      radio("players", "2", "2", true),
      radio("players", "3", "3"),
      radio("players", "4", "4"),
      checkbox("private_concern", "yes", "The Private Concern takes the last seat", "(3 or 4 players: it plays itself)")),
    h("fieldset", null,
      h("legend", null, "Buildings"),
      radio("buildings", "first", "The first game's", true, firstGame.join(", ")),
      radio("buildings", "random", "Four at random"),
      radio("buildings", "choose", "Let me choose"),
      chooser),
    h("fieldset", null,
      h("legend", null, "Variants"),
      checkbox("drafting", "yes", "Drafting", "(steeds and starting heroes are drafted)"),
      checkbox("advanced_deeds", "yes", "Advanced deeds", "(draw 2 deeds, keep 1)")),
    fanCompanions.length
      ? h("fieldset", null,
          h("legend", null, "Fan companions to shuffle into the companion deck"),
          fanCompanions.map((c) => checkbox("companion", c.id, [h("strong", null, c.name), fan(c.plugin, false)], c.text)))
      : null,
    h("fieldset", null,
      h("legend", null, "Seed"),
      h("label", { for: "seed" }, "Seed of the game's dice and decks (leave empty for a random one) "),
      h("input", { id: "seed", name: "seed", type: "number", min: 0, inputmode: "numeric" })),
    h("button", { type: "submit", class: "primary" }, "Create the game"),
    h("p", { class: "hint" }, "Components: ", names.components.size, " from the installed plugins."),
  );
}

function readForm(form: HTMLFormElement): NewGame {
  const data = new FormData(form);
  const players = Number(data.get("players") ?? 2);
  const body: NewGame = { players };
  if (data.get("private_concern") && players >= 3) body.private_concern = true;
  const buildings = data.get("buildings");
  if (buildings === "random") body.random_buildings = true;
  if (buildings === "choose") {
    const chosen = data.getAll("building").map(String);
    if (chosen.length !== 4) throw new Error(`Choose exactly 4 buildings (${chosen.length} chosen).`);
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

function seatLink(game: string, seat: number, token: string): string {
  const fragment = new URLSearchParams({ seat: String(seat), token });
  return `${window.location.origin}/play/${game}#${fragment.toString()}`;
}

function showLinks(section: HTMLElement, created: CreatedGame): void {
  const spectator = `${window.location.origin}/play/${created.id}`;
  fill(section,
    h("h2", { tabindex: -1 }, "The game is ready"),
    h("p", null, "Hand each player their own link: it carries the seat's secret token (after the #, so it never reaches the server's logs). This page will not show the tokens again."),
    h("ul", { class: "seat-links" },
      created.seats.map((seat) =>
        h("li", { "data-seat": seat.seat },
          h("strong", null, `Player ${seat.seat + 1}`),
          seat.token
            ? [": ", h("a", { href: seatLink(created.id, seat.seat, seat.token), class: "seat-link", target: "_blank", rel: "noopener" }, "open the table as this seat"),
               " ", copyButton(seatLink(created.id, seat.seat, seat.token))]
            : ": the Private Concern plays itself.")),
      h("li", null, h("strong", null, "Spectators"), ": ",
        h("a", { href: spectator, class: "spectator-link" }, spectator), " ", copyButton(spectator))));
}

function copyButton(text: string): HTMLElement {
  const button = h("button", { type: "button", class: "copy" }, "Copy link");
  button.addEventListener("click", () => {
    void navigator.clipboard?.writeText(text).then(
      () => (button.textContent = "Copied"),
      () => (button.textContent = "Copy failed: select the link"),
    );
  });
  return button;
}
