// Ids in words: every component by its catalogue name and text (fan plugins' too, with no change
// here), the content packs' cards by name, effects and resources in the rulebook's words.
import type { Catalog, CatalogContent, Component } from "./api";
import { t, tn } from "./i18n";

type Hero = CatalogContent["heroes"][number];
type Companion = Catalog["components"]["companion"][number];
type Commission = CatalogContent["commissions"][number];
type Town = CatalogContent["towns"][number];
type EventCard = CatalogContent["events"][number];

/** The districts, as a name (``district``) and in a sentence (``theDistrict``: "the Great Bazaar"). */
const DISTRICT_WORDS: Record<string, [() => string, () => string]> = {
  great_bazaar: [() => t("Great Bazaar"), () => t("the Great Bazaar")],
  queens_commissions: [() => t("Queen's Commissions"), () => t("the Queen's Commissions")],
  yurgs_excursions: [() => t("Yurg's Excursions"), () => t("Yurg's Excursions")],
  dark_market: [() => t("Dark Market"), () => t("the Dark Market")],
  ringway_inn: [() => t("Ringway Inn"), () => t("the Ringway Inn")],
};

/** The districts by id, in the order of the Ringway. */
export const DISTRICTS: Record<string, string> = Object.fromEntries(
  Object.entries(DISTRICT_WORDS).map(([id, [name]]) => [id, name()]));

/** ``n`` of each resource in words (the plural forms of the page's language). */
const RESOURCES: Record<string, (n: number) => string> = {
  coins: (n) => tn("%(num)d coin", "%(num)d coins", n),
  prestige: (n) => tn("%(num)d prestige", "%(num)d prestige", n),
  lantern: (n) => tn("%(num)d lantern", "%(num)d lanterns", n),
  lanterns: (n) => tn("%(num)d lantern", "%(num)d lanterns", n),
  quartz: (n) => tn("%(num)d blazing quartz", "%(num)d blazing quartz", n),
  horseshoe: (n) => tn("%(num)d horseshoe", "%(num)d horseshoes", n),
  horseshoes: (n) => tn("%(num)d horseshoe", "%(num)d horseshoes", n),
  illuminated: (n) => tn("%(num)d illuminated die", "%(num)d illuminated dice", n),
  goods: (n) => tn("%(num)d good", "%(num)d goods", n),
};

/** "snow_owl" -> "Snow owl": the words of an id nobody named. */
export function humanize(id: string): string {
  const words = id.replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The words of an id looked up in ``words`` (each made when asked, so in the page's language),
 * else ``fallback(id)``: by default the id humanized, in lower case (for inside a sentence). Only
 * ``words``' own keys are words: an id such as "constructor" is no word of every object. */
export function wordsFor(words: Record<string, () => string>,
  fallback: (id: string) => string = (id) => humanize(id).toLowerCase()): (id: string) => string {
  return (id) => (Object.hasOwn(words, id) ? words[id]?.() : undefined) ?? fallback(id);
}

export function count(n: number, resource: string): string {
  const words = RESOURCES[resource];
  return words ? words(n) : `${n} ${humanize(resource).toLowerCase()}`;
}

/** Sources the engine names in words of its own (event data), in words. */
const SOURCES: Record<string, () => string> = {
  ruins_of_yin: () => t("Ruins of Yin"),
  ruins_die: () => t("the ruins die"),
  good_fortune: () => t("good fortune"),
  courtyard_banner: () => t("the courtyard banner"),
  oracle_die: () => t("the oracle die"),
  setup: () => t("the setup"),
  starting_hero: () => t("the starting hero"),
  starting_deed: () => t("the starting deed"),
  horseshoe_move: () => t("a move with a horseshoe"),
  travel_die_reroll: () => t("a reroll of the travel dice"),
  shortcut: () => t("a shortcut"),
  sold_at_the_ringway_inn: () => t("sold at the Ringway Inn"),
  storage_full: () => t("storage full"),
  "slot_#1": () => t("slot #1"),
  "slot_#2": () => t("slot #2"),
  "slot_#3": () => t("slot #3"),
};

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
    return DISTRICT_WORDS[id]?.[0]() ?? this.component(id);
  }

  /** A district's name in a sentence ("the Great Bazaar", "Yurg's Excursions"). */
  theDistrict(id: string): string {
    return DISTRICT_WORDS[id]?.[1]() ?? this.district(id);
  }

  /** A decision's kind in words (an id of the engine's or a plugin's). */
  decision(kind: string): string {
    return humanize(kind).toLowerCase();
  }

  eventCard(id: string): string {
    return this.events.get(id)?.name ?? humanize(id);
  }

  /** A Private Concern's action card by its id, as the catalogue names it in the page's language
   * (``printed``, the event's own name, when the catalogue has no such card). */
  concernCard(id: string, printed?: string): string {
    return this.content.extra_names?.private_concern_cards?.[id] ?? printed ?? humanize(id);
  }

  /** A good type's name ("potion" -> "Potion"). */
  goodType(type: string): string {
    return this.goods.get(type) ?? humanize(type);
  }

  /** A good tile ("potion+" -> "upgraded Potion"). */
  good(token: string): string {
    return token.endsWith("+") ? t("upgraded %(good)s", { good: this.goodType(token.slice(0, -1)) }) : this.goodType(token);
  }

  goodList(tokens: readonly string[]): string {
    return tokens.length ? tokens.map((token) => this.good(token)).join(", ") : t("nothing");
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
    if (!effects.length) return words.nothing ?? t("nothing");
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
      if (kind === "commission") return t("%(town)s commission", { town: this.town(this.commissions.get(id)?.town ?? id) });
      if (kind === "deliver") return t("delivering %(hero)s", { hero: this.hero(id) });
      if (kind === "planning") return t("planning");
    }
    const key = source.toLowerCase().replace(/'/g, "").replace(/[\s-]+/g, "_");
    if (key in DISTRICT_WORDS) return this.district(key);
    const known = SOURCES[key];
    if (known) return known();
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
    return steps < 0 ? tn("%(num)d space counterclockwise", "%(num)d spaces counterclockwise", n) : tn("%(num)d space", "%(num)d spaces", n);
  }

  /** A wagon space of the Ringway (0 is the start space, between the Ringway Inn and the Great Bazaar). */
  space(position: number): string {
    const ids = Object.keys(DISTRICT_WORDS);
    const before = ids[(position + 4) % 5] ?? "";
    const after = ids[position % 5] ?? "";
    const between = { before: this.theDistrict(before), after: this.theDistrict(after) };
    return position === 0 ? t("the start space, between %(before)s and %(after)s", between)
      : t("space %(number)s, between %(before)s and %(after)s", { number: position, ...between });
  }
}
