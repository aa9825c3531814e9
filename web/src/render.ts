// The table, drawn from one GameView: the board (the Ringway and every district's state), the
// wagons (with each good's polyomino where the engine's packing put it) and the final score.
import type { Board, GameView, PlayerView, ScoreLine, Storage } from "./api";
import { h, joined, type Child } from "./dom";
import { t, tn } from "./i18n";
import { DISTRICTS, humanize, type Names } from "./names";

/** How the page names seats and which one is the viewer's. */
export interface Seats {
  me: number | null;
  name(seat: number): string;
}

const RING_ORDER: ReadonlyArray<["space", number] | ["district", number]> = [
  ["space", 0], ["district", 0], ["space", 1], ["district", 1], ["space", 2],
  ["district", 2], ["space", 3], ["district", 3], ["space", 4], ["district", 4],
];
/** Where each cell of RING_ORDER lies on a 4x3 loop, clockwise from the top left: [row, column]. */
const RING_PLACES: ReadonlyArray<[number, number]> = [
  [1, 1], [1, 2], [1, 3], [1, 4], [2, 4], [3, 4], [3, 3], [3, 2], [3, 1], [2, 1],
];

export function pawn(seat: number, seats: Seats): HTMLElement {
  return h("span", { class: `pawn p${seat}`, title: seats.name(seat), "aria-label": seats.name(seat) }, String(seat + 1));
}

function die(value: number | null | undefined, kind = "night"): HTMLElement {
  return value === null || value === undefined
    ? h("span", { class: "die empty", "aria-label": t("empty") }, "–")
    : h("span", { class: `die ${kind}`, "aria-label": kind === "lit" ? t("illuminated die %(value)s", { value })
      : kind === "travel" ? t("travel die %(value)s", { value }) : t("night die %(value)s", { value }) }, String(value));
}

export function panel(id: string, title: Child, ...children: Child[]): HTMLElement {
  return h("section", { class: "panel", id, "aria-labelledby": `${id}-title` }, h("h3", { id: `${id}-title` }, title), ...children);
}

function stat(label: string, value: Child, cls = ""): HTMLElement {
  return h("div", { class: `stat ${cls}` }, h("dt", null, label), h("dd", null, value));
}

/** A good as a chip in its colour ("potion+": upgraded). */
export function goodChip(token: string, names: Names): HTMLElement {
  const type = token.endsWith("+") ? token.slice(0, -1) : token;
  return h("span", { class: `good g${goodIndex(type, names)}${token.endsWith("+") ? " up" : ""}` }, names.good(token));
}

function goodIndex(type: string, names: Names): number {
  const i = names.goodOrder.indexOf(type);
  return i < 0 ? 6 : i;
}

export function goodChips(tokens: readonly string[], names: Names): Child {
  return tokens.length ? joined(tokens.map((token) => goodChip(token, names)), " ") : h("span", { class: "muted" }, t("none"));
}

// -- the board ---------------------------------------------------------------------------

export function renderPanels(view: GameView, names: Names, seats: Seats): HTMLElement {
  const board = view.board;
  return h("section", { id: "board", "aria-label": t("The board") },
    h("h2", { class: "visually-hidden" }, t("The board")),
    h("div", { class: "panels" },
      market(board, names),
      commissions(board, names),
      inn(board, names),
      companionRow(board, names),
      courtyard(board, names),
      travel(view, names, seats),
      darkMarketAndRuins(board, names),
      buildings(board, names),
      pluginState(board, names)));
}

export function renderRingway(view: GameView, names: Names, seats: Seats): HTMLElement {
  const board = view.board;
  const active = view.players[view.active_seat];
  const adjacent = active ? [(active.position + 4) % 5, active.position % 5] : [];
  const cells = RING_ORDER.map(([kind, index], i) => {
    const [row, column] = RING_PLACES[i] ?? [1, 1];
    let cell: HTMLElement;
    if (kind === "district") {
      const id = board.ringway[index] ?? Object.keys(DISTRICTS)[index] ?? "";
      const near = view.status === "active" && adjacent.includes(index);
      cell = h("li", { class: `ring-cell district${near ? " near" : ""}`, "data-district": id },
        h("span", { class: "district-name" }, names.district(id)),
        near ? h("span", { class: "visually-hidden" }, " " + t("(next to the active wagon)")) : null);
    } else {
      const here = view.players.filter((p) => p.position === index);
      const building = index >= 1 ? board.buildings[index - 1] : undefined;
      cell = h("li", { class: "ring-cell space", "data-space": index },
        h("span", { class: "space-name" }, index === 0 ? t("Start") : t("Space %(number)s", { number: index })),
        building ? h("span", { class: "building", title: names.text(building), "data-building": building }, names.component(building)) : null,
        h("span", { class: "pawns" }, here.length ? here.map((p) => pawn(p.seat, seats)) : null));
    }
    cell.style.gridRow = String(row);
    cell.style.gridColumn = String(column);
    return cell;
  });
  const centre = h("li", { class: "ring-centre", "aria-hidden": "true" },
    h("span", { class: "round" }, view.round ? t("Round %(round)s of 13", { round: view.round }) : t("Setup")),
    h("span", { class: "muted" }, t("clockwise ↻")));
  centre.style.gridRow = "2";
  centre.style.gridColumn = "2 / span 2";
  return h("section", { class: "ringway-wrap", "aria-labelledby": "ringway-title" },
    h("h3", { id: "ringway-title" }, t("The Ringway")),
    h("ol", { class: "ringway", "aria-label": t("The Ringway, clockwise from the start space") }, cells, centre));
}

export function market(board: Board, names: Names, id = "market"): HTMLElement {
  const rows = Object.entries(board.market.wheel).sort((a, b) => b[1] - a[1]);
  return panel(id, t("Great Bazaar: the market wheel"),
    h("table", { class: "market" },
      h("thead", null, h("tr", null, h("th", { scope: "col" }, t("Good")), h("th", { scope: "col" }, t("Price")), h("th", { scope: "col" }, t("Market dice")))),
      h("tbody", null, rows.map(([good, price]) => {
        const dice = board.market.dice[good] ?? 0;
        return h("tr", { "data-good": good },
          h("th", { scope: "row" }, goodChip(good, names)),
          h("td", null, `$${price}`),
          h("td", { "aria-label": tn("%(num)d die", "%(num)d dice", dice) }, dice ? "■ ".repeat(dice).trim() : h("span", { class: "muted" }, "–")));
      }))),
    board.market.set_aside ? h("p", { class: "muted" }, t("%(count)s bought this turn (rerolled in Rest)", { count: board.market.set_aside })) : null);
}

export function commissions(board: Board, names: Names, id = "commissions"): HTMLElement {
  return panel(id, t("Queen's Commissions"),
    h("ul", { class: "plain" }, Object.entries(board.commissions).map(([town, stack]) => {
      const card = stack.top ? names.commissions.get(stack.top) : undefined;
      return h("li", { "data-town": town },
        h("strong", null, names.town(town)), ` (${stack.count}): `,
        card ? goodChips(card.requests, names) : stack.top ? names.commission(stack.top) : h("span", { class: "muted" }, t("empty")));
    })));
}

export function heroLine(id: string, names: Names): Child[] {
  const hero = names.heroes.get(id);
  if (!hero) return [h("strong", null, names.hero(id))];
  return [
    h("strong", null, hero.name), " ", t("(%(class)s, to %(town)s) wants", { class: heroClass(hero.hero_class), town: names.town(hero.town) }), " ",
    goodChips(hero.requests, names),
    hero.bonus ? h("span", { class: "muted" }, " · " + heroBonus(hero.bonus)) : null,
  ];
}

/** A hero's class in words (the catalogue's id: the edition's words for it). */
function heroClass(id: string): string {
  const classes: Record<string, () => string> = {
    knight: () => t("knight"), skirmisher: () => t("skirmisher"), alchemist: () => t("alchemist"),
    bard: () => t("bard"), wizard: () => t("wizard"), loremaster: () => t("loremaster"),
  };
  return classes[id]?.() ?? humanize(id).toLowerCase();
}

/** A hero's bonus in words (the catalogue's id). */
function heroBonus(id: string): string {
  const bonuses: Record<string, () => string> = {
    storage: () => t("stores any 1 good"), lantern: () => t("a lantern slot"), horseshoe: () => t("a horseshoe"),
  };
  return bonuses[id]?.() ?? humanize(id).toLowerCase();
}

export function inn(board: Board, names: Names, id = "inn"): HTMLElement {
  return panel(id, t("Ringway Inn"),
    h("ul", { class: "plain" }, board.inn.map((hero) =>
      h("li", { "data-hero": hero ?? "" }, hero ? heroLine(hero, names) : h("span", { class: "muted" }, t("empty"))))),
    h("p", { class: "muted" }, t("Hero deck: %(count)s", { count: board.hero_deck })));
}

function companionCard(card: string, names: Names): Child[] {
  const id = names.companionOf(card);
  const companion = names.companions.get(id);
  const abilities = companion?.data.abilities ?? [];
  return [
    h("strong", { "data-component": id }, names.component(id)),
    companion?.data.loyalty ? h("span", { class: "muted" }, " " + (companion.data.loyalty === "loyal" ? t("(loyal)") : t("(stray)"))) : null,
    abilities.length
      ? h("ul", { class: "abilities" }, abilities.map((a) => h("li", null, a.text, a.gift ? h("span", { class: "muted" }, " " + t("(gift: %(gift)s)", { gift: gift(a.gift, names) })) : null)))
      : h("p", { class: "text" }, names.text(id)),
  ];
}

/** What a companion's ability takes as its gift (a good type, quartz, a horseshoe, a hero). */
function gift(id: string, names: Names): string {
  const gifts: Record<string, () => string> = { quartz: () => t("blazing quartz"), horseshoe: () => t("horseshoe"), hero: () => t("hero") };
  return gifts[id]?.() ?? names.goodType(id).toLowerCase();
}

export function companionRow(board: Board, names: Names, id = "companions"): HTMLElement {
  const last = board.companion_row.length - 1;
  return panel(id, t("Companion row"),
    h("ol", { class: "plain" }, board.companion_row.map((card, i) =>
      h("li", null, card ? companionCard(card, names) : h("span", { class: "muted" }, t("empty")),
        i === last ? h("span", { class: "badge" }, t("+ travel die")) : null))),
    h("p", { class: "muted" }, t("Companion deck: %(count)s", { count: board.companion_deck })));
}

export function courtyard(board: Board, names: Names, id = "courtyard"): HTMLElement {
  return panel(id, t("Courtyard"),
    h("ol", { class: "plain" }, board.courtyard.map((deed, i) => {
      const banner = board.courtyard_banners[i] ?? [];
      return h("li", { "data-deed": deed ?? "" },
        deed ? [h("strong", null, names.component(deed)), h("p", { class: "text" }, names.text(deed))] : h("span", { class: "muted" }, t("empty")),
        h("p", { class: "banner" }, t("Banner: %(bonus)s", { bonus: banner.length ? names.effects(banner) : t("no bonus") })));
    })),
    h("p", { class: "muted" }, t("Deed deck: %(count)s (its top deed comes with no banner bonus)", { count: board.deed_deck })));
}

export function travel(view: GameView, names: Names, seats: Seats, id = "travel"): HTMLElement {
  const board = view.board;
  const caravan = view.caravan;
  const card = caravan?.event ? names.events.get(caravan.event) : undefined;
  return panel(id, t("Travel"),
    h("p", null, joined(Object.entries(board.event_decks).map(([routeId, n]) => (routeId === "shortcut"
      ? t("Shortcut deck: %(count)s", { count: n }) : routeId === "dark_road" ? t("Dark road deck: %(count)s", { count: n })
        : `${humanize(routeId)}: ${n}`)), " · ")),
    h("p", null, t("Good fortune track:"), " ",
      board.upgrades.length ? joined(board.upgrades.map((u) => h("span", { title: names.text(u) }, names.component(u)))) : h("span", { class: "muted" }, t("no upgrades left")),
      board.five_coins ? " · " + t("the 5 coins") : ""),
    caravan
      ? h("div", { class: "caravan", "aria-label": t("The caravan under way") },
          h("p", null, h("strong", null, t("Caravan:"), " "), seats.name(caravan.leader), " ",
            caravan.route === "shortcut" ? t("leads it to %(town)s by a shortcut;", { town: names.town(caravan.town) })
              : t("leads it to %(town)s by the dark road;", { town: names.town(caravan.town) }), " ",
            t("travelling:"), " ", joined(caravan.members.map((m) => pawn(m, seats)), " "), caravan.extra_die ? " " + t("(+ the extra travel die)") : ""),
          card
            ? h("div", null, h("p", null, h("strong", null, card.name), card.flavor ? h("span", { class: "muted" }, ` — ${card.flavor}`) : null),
                h("ul", { class: "faces" }, Object.entries(card.faces).map(([face, effects]) => h("li", null, h("span", { class: "die travel" }, face), " ", names.effects(effects)))))
            : null,
          caravan.dice ? h("p", null, t("Travel dice left:"), " ", caravan.dice.length ? caravan.dice.map((d) => die(d, "travel")) : t("none")) : null,
          caravan.taken ? h("p", null, t("Taken:"), " ", joined(Object.entries(caravan.taken).map(([s, face]) => [pawn(Number(s), seats), ` ${face}`]))) : null)
      : null);
}

export function darkMarketAndRuins(board: Board, names: Names, id = "markers"): HTMLElement {
  const spaces = ["north", "east", "south", "west"];
  const tablet = ["top_left", "top_right", "bottom_right", "bottom_left"];
  const spaceNames: Record<string, () => string> = {
    north: () => t("North"), east: () => t("East"), south: () => t("South"), west: () => t("West"),
    top_left: () => t("Top left"), top_right: () => t("Top right"), bottom_right: () => t("Bottom right"), bottom_left: () => t("Bottom left"),
  };
  const spaceName = (space: string) => spaceNames[space]?.() ?? humanize(space);
  return panel(id, t("Dark Market and Ruins of Yin"),
    h("p", null, h("strong", null, t("Dark market ring:"), " ")),
    h("ul", { class: "ring-spaces" }, spaces.map((space) => {
      const goods = names.content.dark_market[space];
      return h("li", { class: board.dark_market === space ? "marker" : "" },
        `${spaceName(space)}: `, goods ? goodChips(goods, names) : t("a commission or a deed"),
        board.dark_market === space ? h("span", { class: "badge" }, t("marker")) : null);
    })),
    h("p", null, h("strong", null, t("Ruins tablet:"), " ")),
    h("ul", { class: "ring-spaces" }, tablet.map((space) => {
      const goods = names.content.ruins_tablet[space] ?? [];
      return h("li", { class: board.ruins === space ? "marker" : "" },
        `${spaceName(space)}: `, goods.map((g) => (g === "any" ? t("any upgraded good") : t("upgraded %(good)s", { good: names.goodType(g) }))).join(" " + t("or") + " "),
        board.ruins === space ? h("span", { class: "badge" }, t("marker")) : null);
    })));
}

export function buildings(board: Board, names: Names, id = "buildings"): HTMLElement {
  return panel(id, t("Buildings"),
    h("ol", { class: "plain" }, board.buildings.map((id, i) =>
      h("li", { "data-building": id }, h("strong", null, names.component(id)), h("span", { class: "muted" }, " " + t("(space %(number)s)", { number: i + 1 })),
        h("p", { class: "text" }, names.text(id))))));
}

function pluginState(board: Board, names: Names): HTMLElement | null {
  const entries = Object.entries(board.extra).filter(([key]) => key !== "draft");
  const draft = board.extra.draft;
  if (!entries.length && !draft) return null;
  return panel("extra", t("More on the table"),
    draft
      ? h("div", null, h("p", null, h("strong", null, t("Draft:"), " "), t("steed and starting hero stacks")),
          h("ul", { class: "plain" }, draft.map((stack) => h("li", null, stack[0] ? names.component(stack[0]) : t("taken"), " + ", stack[1] ? names.hero(stack[1]) : t("taken")))))
      : null,
    entries.length
      ? h("dl", { class: "extra" }, entries.map(([key, value]) => [h("dt", null, names.component(key)), h("dd", null, plainValue(value, names))]))
      : null);
}

function plainValue(value: unknown, names: Names): string {
  if (typeof value === "string") return names.components.has(value) ? names.component(value) : value;
  if (Array.isArray(value)) return value.map((v) => plainValue(v, names)).join(", ");
  if (value !== null && typeof value === "object") {
    return Object.entries(value).map(([k, v]) => `${humanize(k).toLowerCase()}: ${plainValue(v, names)}`).join("; ");
  }
  return String(value);
}

// -- the wagons ---------------------------------------------------------------------------

export function renderPlayers(view: GameView, names: Names, seats: Seats): HTMLElement {
  return h("section", { id: "players", "aria-label": t("The wagons") },
    h("h2", { class: "visually-hidden" }, t("The wagons")),
    view.players.map((player) => wagon(view, player, names, seats)));
}

function wagon(view: GameView, p: PlayerView, names: Names, seats: Seats): HTMLElement {
  const mine = p.seat === seats.me;
  const active = view.status === "active" && p.seat === view.active_seat;
  const awaited = view.awaiting.includes(p.seat);
  const score = view.score?.find((line) => line.seat === p.seat);
  const secret = (value: number | null) => (value === null ? h("span", { class: "muted", title: t("secret") }, t("hidden")) : String(value));
  return h("article", { class: `wagon p${p.seat}${mine ? " mine" : ""}${active ? " active" : ""}`, "data-seat": p.seat, "aria-labelledby": `wagon-${p.seat}` },
    h("header", null,
      pawn(p.seat, seats),
      h("h3", { id: `wagon-${p.seat}` }, seats.name(p.seat)),
      active ? h("span", { class: "badge" }, t("active")) : null,
      awaited ? h("span", { class: "badge awaited" }, t("deciding")) : null,
      score ? h("span", { class: "badge" }, score.rank === 1 ? t("winner") : t("rank %(rank)s", { rank: score.rank })) : null),
    projection(view, p.seat),
    h("div", { class: "wagon-top" },
      h("div", { class: "numbers" },
        h("dl", { class: "stats" },
          stat(t("Coins"), secret(p.coins)),
          stat(t("Prestige"), String(p.prestige)),
          stat(t("Lanterns"), String(p.lanterns)),
          stat(t("Horseshoes"), String(p.horseshoes)),
          stat(t("Quartz"), String(p.quartz)),
          stat(t("Position"), p.position === 0 ? t("start") : t("space %(number)s", { number: p.position }))),
        p.concern
          ? h("p", null, t("Goods: %(goods)s · action deck: %(deck)s", { goods: p.concern.goods, deck: p.concern.deck }),
              p.concern.discard.length ? " · " + t("discarded: %(cards)s", { cards: p.concern.discard.map((card) => names.concernCard(card)).join(", ") }) : "")
          : dice(p)),
      p.concern ? null : storageView(p, names)),
    section(t("Heroes"), p.heroes.map((id) => h("li", { "data-hero": id }, heroLine(id, names)))),
    section(t("Commissions"), p.commissions.map((id) => {
      const card = names.commissions.get(id);
      return h("li", { "data-commission": id }, card ? [h("strong", null, names.town(card.town)), ": ", goodChips(card.requests, names)] : names.commission(id));
    })),
    section(t("Companions"), p.companions.map((c) => {
      const id = names.companionOf(c.card);
      return h("li", null, h("strong", { title: names.text(id) }, names.component(id)), c.gifts.length ? h("span", { class: "muted" }, " " + t("(%(count)s used)", { count: c.gifts.length })) : null);
    })),
    section(t("Steed"), p.steeds.map((id) => h("li", null, h("strong", null, names.component(id)), h("p", { class: "text" }, names.text(id))))),
    section(t("Upgrade"), p.upgrades.map((id) => h("li", null, h("strong", null, names.component(id)), h("p", { class: "text" }, names.text(id))))),
    h("p", { class: "delivered" }, t("Delivered: %(commissions)s commissions, %(heroes)s heroes", { commissions: p.delivered_commissions, heroes: p.delivered_heroes })),
    p.deeds === null
      ? h("p", { class: "deeds" }, t("Deeds: %(count)s", { count: p.deed_count }), " ", h("span", { class: "muted" }, t("(secret)")))
      : h("div", { class: "deeds mine-only", "data-deeds": p.seat },
          h("h4", null, mine && view.status === "active" ? t("Deeds (%(count)s): only you see them", { count: p.deeds.length }) : t("Deeds (%(count)s)", { count: p.deeds.length })),
          p.deeds.length
            ? h("ul", { class: "plain" }, p.deeds.map((id) => h("li", { "data-deed": id }, h("strong", null, names.component(id)), h("p", { class: "text" }, names.text(id)))))
            : h("p", { class: "muted" }, t("none"))));
}

type Projected = NonNullable<GameView["projected"]>[number];

/** The seat's final score if the game ended now, as far as the viewer may see it, with the
 * scoring rule (rulebook p. 13). A view kept before projections (an old game's replay) has none. */
function projection(view: GameView, seat: number): HTMLElement | null {
  const line: Projected | undefined = view.projected?.find((item) => item.seat === seat);
  if (!line) return null;
  const vp = tn("%(num)d victory point", "%(num)d victory points", line.vp);
  let value: string;
  let how: string;
  if (line.known) {
    value = String(line.total);
    how = t("the lower of %(coins)s and %(prestige)s prestige, plus %(vp)s", { coins: tn("%(num)d coin", "%(num)d coins", line.coins ?? 0), prestige: line.prestige, vp });
  } else {
    value = line.low === line.high ? String(line.low) : t("%(low)s to %(high)s", { low: line.low, high: line.high });
    how = t("coins hidden: the lower of its coins and %(prestige)s prestige, plus %(vp)s", { prestige: line.prestige, vp });
    if (line.secret_deeds) how += "; " + tn("%(num)d secret deed not counted", "%(num)d secret deeds not counted", line.secret_deeds);
  }
  return h("p", { class: "projected", "data-projected": seat },
    h("span", { class: "label" }, view.status === "finished" ? t("Final score:") + " " : t("Score if the game ended now:") + " "),
    h("strong", null, value), h("span", { class: "muted" }, ` (${how})`));
}

function section(title: string, items: HTMLElement[]): HTMLElement {
  return h("div", { class: "wagon-part" }, h("h4", null, title),
    items.length ? h("ul", { class: "plain" }, items) : h("p", { class: "muted" }, t("none")));
}

export function dice(p: PlayerView): HTMLElement {
  return h("div", { class: "dice" },
    h("p", null, t("Locked:"), " ", p.locked.map((value, i) => h("span", { class: "slot" }, `#${i + 1} `, die(value)))),
    h("p", null, t("Reserve:"), " ", p.reserve.length ? p.reserve.map((v) => die(v)) : h("span", { class: "muted" }, t("empty")),
      h("span", { class: "muted" }, " · " + t("spent %(spent)s · removed %(removed)s", { spent: p.spent, removed: p.removed }))),
    h("p", null, t("Illuminated:"), " ", p.special_reserve.length ? p.special_reserve.map((v) => die(v, "lit")) : h("span", { class: "muted" }, t("none"))),
    h("p", null, t("Action pool:"), " ", p.action_pool.length
      ? p.action_pool.map((d) => die(d.value, d.kind === "illuminated" ? "lit" : "night"))
      : h("span", { class: "muted" }, t("empty"))));
}

/** The wagon's storage: the engine's arrangement, each good drawn as its polyomino. */
function storageView(p: PlayerView, names: Names): HTMLElement {
  const storage = p.storage;
  const label = tn("Storage of %(num)d good: %(goods)s", "Storage of %(num)d goods: %(goods)s", p.goods.length,
    { goods: p.goods.length ? names.goodList(p.goods) : t("empty") });
  if (!storage) {
    return h("div", { class: "storage overflow" },
      h("h4", null, t("Storage")),
      h("p", null, t("Too many goods to fit: one must go back (the next decision).")),
      h("p", null, goodChips(p.goods, names)));
  }
  return h("div", { class: "storage" },
    h("h4", null, t("Storage")),
    h("div", { class: "grids" },
      grid(storage.grid, storage, p.goods, names, "storage-grid", label, true),
      storage.extra_grids.map((g, i) => grid(g, storage, p.goods, names, "storage-grid extra", t("Extra storage %(number)s", { number: i + 1 }), false))),
    storage.slots
      ? h("p", { class: "slots" }, t("Slots for any good:"), " ",
          Array.from({ length: storage.slots }, (_, i) => {
            const good = storage.slot_goods[i];
            const token = good === undefined ? undefined : p.goods[good];
            return token ? goodChip(token, names) : h("span", { class: "good empty" }, t("empty"));
          }))
      : null);
}

function grid(cells: Storage["grid"], storage: Storage, goods: readonly string[], names: Names, cls: string, label: string, main: boolean): HTMLElement {
  const fixed = new Set(main ? storage.fixed_tiles.flat().map(([r, c]) => `${r},${c}`) : []);
  const at = (r: number, c: number) => cells[r]?.[c] ?? null;
  const seen = new Set<number>();
  const element = h("div", { class: cls, role: "img", "aria-label": label });
  element.style.gridTemplateColumns = `repeat(${cells[0]?.length ?? 0}, 1fr)`;
  cells.forEach((row, r) =>
    row.forEach((good, c) => {
      if (good === null) {
        element.appendChild(h("span", { class: fixed.has(`${r},${c}`) ? "cell fixed" : "cell" }));
        return;
      }
      const token = goods[good] ?? "";
      const type = token.endsWith("+") ? token.slice(0, -1) : token;
      const edges = [
        at(r - 1, c) !== good ? " et" : "",
        at(r + 1, c) !== good ? " eb" : "",
        at(r, c - 1) !== good ? " el" : "",
        at(r, c + 1) !== good ? " er" : "",
      ].join("");
      const first = !seen.has(good);
      seen.add(good);
      element.appendChild(h("span", { class: `cell good g${goodIndex(type, names)}${token.endsWith("+") ? " up" : ""}${edges}`, "data-good": good },
        first ? `${names.goodType(type).charAt(0)}${token.endsWith("+") ? "+" : ""}` : ""));
    }));
  return element;
}

// -- the score ----------------------------------------------------------------------------

export function renderScore(view: GameView, seats: Seats): HTMLElement | null {
  if (!view.score) return null;
  const lines = [...view.score].sort((a, b) => a.rank - b.rank || a.seat - b.seat);
  const columns: Array<[string, (line: ScoreLine) => Child]> = [
    [t("Rank"), (l) => (l.rank === 1 ? t("1 (winner)") : String(l.rank))],
    [t("Player"), (l) => [pawn(l.seat, seats), " ", seats.name(l.seat)]],
    [t("Total"), (l) => h("strong", null, String(l.total))],
    [t("Coins"), (l) => String(l.coins)],
    [t("Prestige"), (l) => String(l.prestige)],
    [t("Base (the lower)"), (l) => String(l.base)],
    [t("Deed VP"), (l) => String(l.deed_vp)],
    [t("Illuminated VP"), (l) => String(l.illuminated_vp)],
    [t("Goods VP"), (l) => String(l.goods_vp)],
    [t("Quartz VP"), (l) => String(l.quartz_vp)],
    [t("Tie-breaker 1: discarded (the higher)"), (l) => String(l.discarded)],
    [t("2: gifts"), (l) => String(l.gifts)],
    [t("3: commissions delivered"), (l) => String(l.commissions_delivered)],
    [t("4: heroes delivered"), (l) => String(l.heroes_delivered)],
  ];
  const winners = view.winners ?? [];
  return h("section", { id: "score", "aria-labelledby": "score-title" },
    h("h2", { id: "score-title" }, winners.length > 1
      ? t("Final score: %(winners)s share the victory", { winners: winners.map((w) => seats.name(w)).join(" " + t("and") + " ") })
      : t("Final score: %(winner)s wins", { winner: winners.map((w) => seats.name(w)).join("") })),
    h("div", { class: "scroll" },
      h("table", { class: "score", tabindex: 0, "aria-labelledby": "score-title" }, // a tab stop: it scrolls sideways on a phone
        h("thead", null, h("tr", null, columns.map(([title]) => h("th", { scope: "col" }, title)))),
        h("tbody", null, lines.map((line) =>
          h("tr", { class: line.rank === 1 ? "winner" : "", "data-seat": line.seat }, columns.map(([, cell]) => h("td", null, cell(line)))))))),
    h("ul", { class: "plain details" }, lines.filter((l) => l.details.length).map((l) =>
      h("li", null, h("strong", null, `${seats.name(l.seat)}: `), l.details.join("; ")))),
    h("p", { class: "muted" }, t("Score = the lower of coins and prestige + victory points. Ties: the higher of coins and prestige, then gifts on loyal companions, then commissions delivered, then heroes delivered.")));
}
