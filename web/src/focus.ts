// The part of the board a decision is about, shown with the decision (under its buttons: next
// to them in the side column on a wide screen, after them on a phone, where the decision comes
// first): the market wheel at the Great Bazaar, the event card's faces at a travel die, the
// crafting chart and your dice at Plan, your commissions and heroes with the towns' rewards at
// a delivery. Drawn by the board's own panels (their ids prefixed: the board keeps its own).
import type { GameView } from "./api";
import { h } from "./dom";
import { t } from "./i18n";
import type { Names } from "./names";
import {
  companionRow, courtyard, darkMarketAndRuins, dice, goodChip, goodChips, heroLine, inn, market, panel,
  type Seats, travel,
} from "./render";

const PREFIX = "decision-";

type Part = (view: GameView, names: Names, seats: Seats) => HTMLElement | null;

/** Plan: the crafting chart (slot #1 crafts the good of the die newly locked there) and the dice. */
const planning: Part = (view, names, seats) => {
  const me = seats.me === null ? undefined : view.players[seats.me];
  const chart = Object.entries(names.content.crafting_chart);
  return panel(`${PREFIX}plan`, t("Your dice and the crafting chart"),
    me ? dice(me) : null,
    h("table", { class: "crafting" },
      h("caption", { class: "muted" }, t("Slot #1 crafts the good of the die newly locked there")),
      h("thead", null, h("tr", null, h("th", { scope: "col" }, t("Die")), h("th", { scope: "col" }, t("Good")))),
      h("tbody", null, chart.map(([value, good]) => h("tr", null, h("td", null, value), h("td", null, goodChip(good, names)))))));
};

/** A delivery: what the seat may deliver, and what each town gives per hero. */
const deliveries: Part = (view, names, seats) => {
  const me = seats.me === null ? undefined : view.players[seats.me];
  if (!me) return null;
  return panel(`${PREFIX}deliveries`, t("What you may deliver"),
    h("h4", null, t("Your commissions")),
    me.commissions.length
      ? h("ul", { class: "plain" }, me.commissions.map((id) => {
          const card = names.commissions.get(id);
          return h("li", null, card ? [h("strong", null, names.town(card.town)), ": ", goodChips(card.requests, names)] : names.commission(id));
        }))
      : h("p", { class: "muted" }, t("none")),
    h("p", { class: "muted" }, t("A commission gives 1, 3 or 6 prestige for 1, 2 or 3 of its goods, and 1 more for each upgraded good.")),
    h("h4", null, t("Your heroes")),
    me.heroes.length ? h("ul", { class: "plain" }, me.heroes.map((id) => h("li", null, heroLine(id, names)))) : h("p", { class: "muted" }, t("none")),
    h("h4", null, t("What a hero delivered to each town gives")),
    h("ul", { class: "plain" }, names.content.towns.map((town) =>
      h("li", null, h("strong", null, town.name), ": ", names.effects(town.reward)))));
};

const PARTS: Record<string, Part> = {
  plan: planning,
  slot2: planning,
  great_bazaar: (view, names) => market(view.board, names, `${PREFIX}market`),
  bazaar_buy: (view, names) => market(view.board, names, `${PREFIX}market`),
  slot3: (view, names) => market(view.board, names, `${PREFIX}market`),
  travel_die: (view, names, seats) => travel(view, names, seats, `${PREFIX}travel`),
  threy_cat_duplicate: (view, names, seats) => travel(view, names, seats, `${PREFIX}travel`),
  good_fortune: (view, names, seats) => travel(view, names, seats, `${PREFIX}travel`),
  deliveries,
  ringway_inn: (view, names) => inn(view.board, names, `${PREFIX}inn`),
  inn_sell: (view, names) => inn(view.board, names, `${PREFIX}inn`),
  dark_market: (view, names) => darkMarketAndRuins(view.board, names, `${PREFIX}markers`),
  ruins_move: (view, names) => darkMarketAndRuins(view.board, names, `${PREFIX}markers`),
  ruins_die_offer: (view, names) => darkMarketAndRuins(view.board, names, `${PREFIX}markers`),
  caravan_companion: (view, names) => companionRow(view.board, names, `${PREFIX}companions`),
  choose_starting_deed: (view, names) => courtyard(view.board, names, `${PREFIX}courtyard`),
};

/** The board's part a decision of ``type`` is about (null: none in particular). */
export function decisionBoard(type: string, view: GameView, names: Names, seats: Seats): HTMLElement | null {
  const drawn = PARTS[type]?.(view, names, seats) ?? null;
  drawn?.classList.add("decision-board");
  return drawn;
}
