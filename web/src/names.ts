// Ids in words: every component by its catalogue name and text (fan plugins' too, with no change
// here), the content packs' cards by name, effects and resources in the rulebook's words.
import type { Catalog, CatalogContent, Component } from "./api";

type Hero = CatalogContent["heroes"][number];
type Companion = Catalog["components"]["companion"][number];
type Commission = CatalogContent["commissions"][number];
type Town = CatalogContent["towns"][number];
type EventCard = CatalogContent["events"][number];

export const DISTRICTS: Record<string, string> = {
  great_bazaar: "Great Bazaar",
  queens_commissions: "Queen's Commissions",
  yurgs_excursions: "Yurg's Excursions",
  dark_market: "Dark Market",
  ringway_inn: "Ringway Inn",
};

const RESOURCES: Record<string, [string, string]> = {
  coins: ["coin", "coins"],
  prestige: ["prestige", "prestige"],
  lantern: ["lantern", "lanterns"],
  lanterns: ["lantern", "lanterns"],
  quartz: ["blazing quartz", "blazing quartz"],
  horseshoe: ["horseshoe", "horseshoes"],
  horseshoes: ["horseshoe", "horseshoes"],
  illuminated: ["illuminated die", "illuminated dice"],
};

/** "snow_owl" -> "Snow owl": the words of an id nobody named. */
export function humanize(id: string): string {
  const words = id.replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function count(n: number, resource: string): string {
  const [one, many] = RESOURCES[resource] ?? [humanize(resource).toLowerCase(), humanize(resource).toLowerCase()];
  return `${n} ${Math.abs(n) === 1 ? one : many}`;
}

export class Names {
  readonly components = new Map<string, Component>();
  readonly companions = new Map<string, Companion>();
  readonly heroes = new Map<string, Hero>();
  readonly commissions = new Map<string, Commission>();
  readonly towns = new Map<string, Town>();
  readonly events = new Map<string, EventCard>();
  readonly goods = new Map<string, string>();
  readonly bots = new Map<string, string>();
  readonly goodOrder: string[];
  readonly content: CatalogContent;

  constructor(catalog: Catalog) {
    const kinds = catalog.components;
    for (const list of [kinds.building, kinds.companion, kinds.steed, kinds.deed, kinds.upgrade]) {
      for (const component of list) this.components.set(component.id, component);
    }
    for (const companion of kinds.companion) this.companions.set(companion.id, companion);
    this.content = catalog.content;
    for (const hero of catalog.content.heroes) this.heroes.set(hero.id, hero);
    for (const commission of catalog.content.commissions) this.commissions.set(commission.id, commission);
    for (const town of catalog.content.towns) this.towns.set(town.id, town);
    for (const card of catalog.content.events) this.events.set(card.id, card);
    for (const good of catalog.content.goods) this.goods.set(good.id, good.name);
    this.goodOrder = catalog.content.goods.map((good) => good.id);
    for (const bot of catalog.bots) this.bots.set(bot.id, bot.name);
  }

  /** An installed bot's name (by its id). */
  bot(id: string): string {
    return this.bots.get(id) ?? humanize(id);
  }

  /** A component's name (a building, companion, steed, deed or upgrade id). */
  component(id: string): string {
    return this.components.get(id)?.name ?? humanize(id);
  }

  text(id: string): string {
    return this.components.get(id)?.text ?? "";
  }

  /** The companion of a companion card ("phoenix-2" -> "phoenix"). */
  companionOf(card: string): string {
    return this.components.has(card) ? card : card.replace(/-\d+$/, "");
  }

  hero(id: string): string {
    return this.heroes.get(id)?.name ?? humanize(id);
  }

  town(id: string): string {
    return this.towns.get(id)?.name ?? humanize(id);
  }

  district(id: string): string {
    return DISTRICTS[id] ?? this.component(id);
  }

  /** A district's name in a sentence ("the Great Bazaar", "Yurg's Excursions"). */
  theDistrict(id: string): string {
    return id === "yurgs_excursions" || !(id in DISTRICTS) ? this.district(id) : `the ${this.district(id)}`;
  }

  eventCard(id: string): string {
    return this.events.get(id)?.name ?? humanize(id);
  }

  /** A good type's name ("potion" -> "Potion"). */
  goodType(type: string): string {
    return this.goods.get(type) ?? humanize(type);
  }

  /** A good tile ("potion+" -> "upgraded Potion"). */
  good(token: string): string {
    return token.endsWith("+") ? `upgraded ${this.goodType(token.slice(0, -1))}` : this.goodType(token);
  }

  goodList(tokens: readonly string[]): string {
    return tokens.length ? tokens.map((t) => this.good(t)).join(", ") : "nothing";
  }

  commission(id: string): string {
    const card = this.commissions.get(id);
    return card ? `${this.town(card.town)}: ${card.requests.map((g) => this.goodType(g)).join(", ")}` : humanize(id);
  }

  /** Effects in words, as the engine words them: the catalogue's ``effect_words`` (every effect
   * and list of effects the content prints, keyed by the effects joined with "|"). An effect it
   * does not list (none of the content's) shows as the engine's own terms, spaced. */
  effects(effects: readonly string[]): string {
    const words = this.content.effect_words ?? {};
    const all = words[effects.join("|")];
    if (all) return all;
    if (!effects.length) return words.nothing ?? "nothing";
    return effects.map((e) => words[e] ?? humanize(e.replace(/:/g, " "))).join("; ");
  }

  effect(effect: string): string {
    return this.effects([effect]);
  }

  /** What caused an event, for display (a district, a card, a component, ...). */
  source(source: string): string {
    if (!source) return "";
    const [kind = "", ...rest] = source.split(":");
    const id = rest.join(":");
    if (id) {
      if (kind === "hero") return this.hero(id);
      if (kind === "event") return this.eventCard(id);
      if (kind === "companion") return this.component(this.companionOf(id));
      if (kind === "commission") return `${this.town(this.commissions.get(id)?.town ?? id)} commission`;
      if (kind === "deliver") return `delivering ${this.hero(id)}`;
      if (kind === "planning") return "planning";
    }
    const key = source.toLowerCase().replace(/'/g, "").replace(/[\s-]+/g, "_");
    if (key in DISTRICTS) return this.district(key);
    if (key === "ruins_of_yin") return "Ruins of Yin";
    if (this.components.has(source)) return this.component(source);
    return humanize(source);
  }

  /** A companion ability's text. */
  ability(companion: string, ability: string): string {
    const abilities = this.companions.get(companion)?.data.abilities ?? [];
    return abilities.find((a) => a.id === ability)?.text ?? humanize(ability);
  }

  steps(steps: number): string {
    const n = Math.abs(steps);
    return `${n} ${n === 1 ? "space" : "spaces"}${steps < 0 ? " counterclockwise" : ""}`;
  }

  /** A wagon space of the Ringway (0 is the start space, between the Ringway Inn and the Great Bazaar). */
  space(position: number): string {
    const ids = Object.keys(DISTRICTS);
    const before = ids[(position + 4) % 5] ?? "";
    const after = ids[position % 5] ?? "";
    const name = position === 0 ? "the start space" : `space ${position}`;
    return `${name}, between ${this.theDistrict(before)} and ${this.theDistrict(after)}`;
  }
}
