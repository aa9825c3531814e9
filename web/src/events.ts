// The event log in words. One sentence per known event type (a mapped type over the document's
// KnownEvent union: an event type added to the contract fails the build until it has words
// here); fan plugins' events (those with `plugin`) are told from their type and data.
import type { GameEvent, KnownEvent } from "./api";
import { language, t, tn } from "./i18n";
import { duration } from "./lobby";
import { count, humanize, type Names, wordsFor } from "./names";

type Known = KnownEvent["type"];
type DataOf = { [K in Known]: Extract<KnownEvent, { type: K }>["data"] };
type Words = { [K in Known]: (data: DataOf[K], who: string, names: Names, seat: (n: number) => string) => string };

const route = (id: string) => (id === "shortcut" ? t("by a shortcut") : t("by the dark road"));
const from = (names: Names, source: string) => (source ? " " + t("(%(source)s)", { source: names.source(source) }) : "");
const dice = (values: readonly number[]) => (values.length ? values.join(", ") : t("none"));

/** A reason the engine gave for something that did nothing (event data: English), in words; one
 * these words do not know is left out in another language than English (never English words in
 * a translated sentence). */
const reason = wordsFor({
  "inventory full": () => t("inventory full"),
  "no lantern slot": () => t("no lantern slot"),
  "max illuminated dice held": () => t("max illuminated dice held"),
  "declined": () => t("declined"),
  "no unused steed left": () => t("no unused steed left"),
  "nothing to trade: needs 1 lantern, 1 blazing quartz or 2 coins": () => t("nothing to trade: needs 1 lantern, 1 blazing quartz or 2 coins"),
}, (text) => (language === "en" ? text : ""));

/** A choice of an event's data (an option id) in words. */
const choice = wordsFor({
  ruins: () => t("the Ruins of Yin"),
  caravan: () => t("a caravan"),
  illuminated: () => t("an illuminated die"),
  deed: () => t("a deed and its bonus"),
  coins: () => t("coins"),
  upgrade: () => t("a wagon upgrade"),
});

/** The spaces of the dark market and the ruins (their markers' event data) in words. */
const space = wordsFor({
  north: () => t("the north space"), east: () => t("the east space"), south: () => t("the south space"),
  west: () => t("the west space"), top_left: () => t("the top-left space"), top_right: () => t("the top-right space"),
  bottom_right: () => t("the bottom-right space"), bottom_left: () => t("the bottom-left space"),
});

/** The district actions of the Private Concern's cards (``concern_action``'s ``action``), in words. */
const concernAction = wordsFor({
  bazaar: () => t("the bazaar action"),
  commission: () => t("the commission action"),
  travel: () => t("the travel action"),
  ruins: () => t("the ruins action"),
  dark_market: () => t("the dark market action"),
  inn: () => t("the inn action"),
});

/** What the player chose for the Private Concern (``concern_choice``: ``what`` and ``option``,
 * the engine's ids), in words: the town, hero or card chosen where the option names one. */
function concernChoice(what: string, option: string, n: Names): string {
  const [verb = "", arg = "", more = ""] = option.split(":");
  if (what === "destination") return t("the destination of its caravan: %(town)s", { town: n.town(arg) });
  if (what === "deliver") return t("the town it delivers to: %(town)s", { town: n.town(arg) });
  if (what === "effect") {
    if (verb === "hero") return arg === "deck" ? t("the top hero of the deck") : t("the hero in inn slot %(slot)s", { slot: Number(more) + 1 });
    if (verb === "lose_hero") return t("the hero it loses: %(hero)s", { hero: n.hero(arg) });
    if (verb === "deliver_hero") return t("the hero it delivers: %(hero)s", { hero: n.hero(arg) });
    if (verb === "commission") return arg ? t("%(town)s commission", { town: n.town(arg) }) : t("a commission");
    if (verb === "deed") return arg === "courtyard" ? t("the courtyard deed in slot %(slot)s", { slot: Number(more) + 1 })
      : arg === "deck" ? t("the top deed of the deck") : t("a deed");
    return n.effect(option);
  }
  // A plugin's decision relayed to the player: its option as the engine named it.
  return t("an answer to a plugin's decision (%(option)s)", { option });
}

/** ``text`` with ``why`` after a colon, or alone when there is no reason to tell. */
const because = (text: string, why: string) => (why ? t("%(what)s: %(why)s", { what: text, why }) : text);

const WORDS: Words = {
  activated: (d, who, n) => t("%(who)s activated %(target)s.", { who, target: d.what === "building" ? n.component(d.target) : n.district(d.target) }),
  answered: (d, who, n) => {
    // The answer as its decision listed it, worded by the engine in every language: the page words nothing.
    const label = d.labels?.[language];
    if (label) return t("%(who)s chose: %(label)s", { who, label });
    // An event logged before the labels: a companion ability by its card, else the option's id.
    return d.decision === "companion"
      ? t("%(who)s chose an ability of %(companion)s.", { who, companion: n.component(n.companionOf(d.option.split(":")[0] ?? "")) })
      : t("%(who)s answered %(decision)s: %(option)s.", { who, decision: n.decision(d.decision), option: d.option });
  },
  bought: (d, who, n) => t("%(who)s bought %(good)s for %(coins)s.", { who, good: n.good(d.good), coins: count(d.cost, "coins") }),
  building_unused: (d, who, n) => because(t("%(building)s did nothing for %(who)s", { building: n.component(d.building), who }), reason(d.reason)),
  caravan_answer: (d, who) => (d.join ? t("%(who)s joins the caravan.", { who }) : t("%(who)s stays home.", { who })),
  caravan_declared: (d, who, n) => t("%(who)s leads a caravan to %(town)s %(route)s.", { who, town: n.town(d.town), route: route(d.route) }),
  commission_delivered: (d, who, n) =>
    t("%(who)s delivered a commission (%(commission)s) with %(goods)s for %(prestige)s.", {
      who, commission: n.commission(d.commission),
      goods: d.goods ? n.goodList(d.goods) : count(d.goods_count ?? 0, "goods"), prestige: count(d.prestige, "prestige"),
    }),
  commission_discarded: (d, who, n) => t("%(who)s discarded a commission (%(commission)s).", { who, commission: n.commission(d.commission) }),
  commission_gained: (d, who, n) => t("%(who)s took a commission (%(commission)s)", { who, commission: n.commission(d.commission) }) + from(n, d.source),
  companion_discarded: (d, who, n) => t("%(who)s discarded %(companion)s.", { who, companion: n.component(n.companionOf(d.card)) }),
  companion_passed: (d, who, n, seat) => t("%(companion)s moved on from %(who)s to %(to)s.", { companion: n.component(n.companionOf(d.card)), who, to: seat(d.to) }),
  companion_returned: (d, who, n) => t("%(who)s returned %(companion)s.", { who, companion: n.component(n.companionOf(d.card)) }),
  companion_taken: (d, who, n) =>
    (d.travel_die ? t("%(who)s took %(companion)s with the extra travel die.", { who, companion: n.component(d.companion) })
      : t("%(who)s took %(companion)s.", { who, companion: n.component(d.companion) })),
  companion_used: (d, who, n) => t("%(who)s used %(companion)s: %(ability)s.", { who, companion: n.component(d.companion), ability: n.ability(d.companion, d.ability) }),
  concern_action: (d, who, n) =>
    (d.action
      ? (d.district ? t("%(who)s resolved %(action)s at %(district)s.", { who, action: concernAction(d.action), district: n.district(d.district) })
        : t("%(who)s resolved %(action)s.", { who, action: concernAction(d.action) }))
      : t("%(who)s applied no action of its card.", { who })),
  concern_card: (d, who, n) => t("%(who)s drew its action card %(card)s.", { who, card: n.concernCard(d.card, d.name) }),
  concern_choice: (d, who, n, seat) => t("%(who)s chose for %(concern)s: %(choice)s.", { who, concern: seat(d.concern), choice: concernChoice(d.what, d.option, n) }),
  concern_deck_shuffled: (d, who) => t("%(who)s reshuffled its action deck (%(cards)s cards).", { who, cards: d.cards }),
  concern_sold: (d, who, n) => t("%(who)s sold %(goods)s to %(hero)s for %(coins)s.", { who, goods: count(d.goods_count, "goods"), hero: n.hero(d.hero), coins: count(d.coins, "coins") }),
  dark_market_moved: (d, _who, n) => t("The dark market marker moved %(steps)s to %(space)s.", { steps: n.steps(d.steps), space: space(d.space) }),
  deed_gained: (d, who, n) => t("%(who)s gained a deed", { who }) + from(n, d.source),
  deed_gained_private: (d, who, n) => t("%(who)s gained the deed %(deed)s (secret).", { who, deed: n.component(d.deed) }),
  deed_kept: (d, who, n) => t("%(who)s kept the deed %(deed)s (secret).", { who, deed: n.component(d.deed) }),
  deed_revealed: (d, who, n) => t("%(who)s revealed the deed %(deed)s.", { who, deed: n.component(d.deed) }),
  deliveries_done: (_d, who) => t("%(who)s finished delivering.", { who }),
  dice_reset: (_d, who) => t("%(who)s reset the locked night dice to 1, 2, 3.", { who }),
  die_bumped: (d, who) =>
    (d.locked === null
      ? t("%(who)s bumped the %(die)s from slot #%(slot)s into the action pool.", { who, die: d.to_pool, slot: d.slot })
      : t("%(who)s bumped the %(die)s from slot #%(slot)s into the action pool, locking a %(locked)s there.", { who, die: d.to_pool, slot: d.slot, locked: d.locked })),
  discarded: (d, who) => because(t("%(who)s discarded %(what)s", { who, what: count(d.amount, d.resource) }), reason(d.reason)),
  event_revealed: (d, _who, n) => t("Event card: %(card)s. Travel dice: %(dice)s.", { card: n.eventCard(d.event), dice: dice(d.dice) }),
  excursion: (d, who) => t("%(who)s chose %(choice)s at Yurg's Excursions.", { who, choice: choice(d.choice) }),
  gained: (d, who, n) => t("%(who)s gained %(what)s", { who, what: gainWords(d, n) }) + from(n, d.source),
  game_finished: (d, _who, _n, seat) =>
    tn("The game is over. Winner: %(winners)s.", "The game is over. Winners: %(winners)s.", d.winners.length, { winners: d.winners.map(seat).join(", ") }),
  game_started: (d, _who, n) => t("The game was set up for %(players)s seats, with %(buildings)s.", { players: d.players, buildings: d.buildings.map((b) => n.component(b)).join(", ") }),
  good_flipped: (d, who, n) => t("%(who)s: %(good)s became %(to)s", { who, good: n.good(d.good), to: n.good(d.to) }) + from(n, d.source),
  good_fortune: (d, who) => t("%(who)s took the good fortune: %(choice)s.", { who, choice: choice(d.choice) }),
  hero_delivered: (d, who, n) => t("%(who)s delivered %(hero)s to %(town)s.", { who, hero: n.hero(d.hero), town: n.town(d.town) }),
  hero_discarded: (d, who, n) => t("%(who)s discarded %(hero)s.", { who, hero: n.hero(d.hero) }),
  hero_joined: (d, who, n) => t("%(hero)s joined %(who)s", { hero: n.hero(d.hero), who }) + from(n, d.source),
  hero_lost: (d, who, n) => t("%(hero)s left %(who)s", { hero: n.hero(d.hero), who }) + from(n, d.source),
  illuminated_returned: (_d, who) => t("%(who)s returned an illuminated die.", { who }),
  illuminated_to_pool: (d, who) => t("%(who)s moved an illuminated %(value)s into the action pool.", { who, value: d.value }),
  lost: (d, who, n) => t("%(who)s lost %(what)s", { who, what: gainWords(d, n) }) + from(n, d.source),
  market_die_changed: (d, _who, n) => t("A market die turned from %(from)s to %(to)s.", { from: n.goodType(d.frm), to: n.goodType(d.to) }),
  market_rerolled: () => t("The market dice bought this turn were rerolled."),
  moved: (d, who, n) =>
    (d.horseshoe ? t("%(who)s moved %(steps)s with a horseshoe to %(space)s.", { who, steps: n.steps(d.steps), space: n.space(d.position) })
      : t("%(who)s moved %(steps)s to %(space)s.", { who, steps: n.steps(d.steps), space: n.space(d.position) })),
  night_dice_refreshed: (d, who) =>
    t("%(who)s rerolled the spent night dice into the main reserve (%(removed)s removed): %(dice)s.", { who, removed: d.removed, dice: dice(d.reserve) }),
  oracle_die_rolled: (d, who, n) =>
    (d.number === null || d.number === undefined
      ? t("The oracle die rolled a face for %(who)s: %(effects)s", { who, effects: n.effects(d.face) })
      : t("The oracle die rolled %(number)s for %(who)s: %(effects)s", { number: d.number, who, effects: n.effects(d.face) })) + from(n, d.source),
  option_withdrawn: (d, who, n) =>
    (d.plugin
      ? t("An answer of %(who)s (%(decision)s: %(option)s) was withdrawn: plugin %(plugin)s failed (%(reason)s).", { who, decision: n.decision(d.decision), option: d.option, plugin: d.plugin, reason: d.reason })
      : t("An answer of %(who)s (%(decision)s: %(option)s) was withdrawn: it failed (%(reason)s).", { who, decision: n.decision(d.decision), option: d.option, reason: d.reason })),
  paid: (d, who, n) => t("%(who)s paid %(what)s", { who, what: count(d.amount, d.resource) }) + from(n, d.source),
  round_ended: (d) => t("Round %(round)s ended.", { round: d.round }),
  ruins_die_rolled: (d, who, n) =>
    (d.reroll ? t("%(who)s rolled the ruins die: %(face)s (a reroll).", { who, face: n.effect(d.face) })
      : t("%(who)s rolled the ruins die: %(face)s.", { who, face: n.effect(d.face) })),
  ruins_moved: (d, _who, n) => t("The ruins marker moved %(steps)s to %(space)s.", { steps: n.steps(d.steps), space: space(d.space) }),
  seat_clock_low: (d, who) => t("%(who)s's time bank is running low: %(left)s left.", { who, left: duration(Math.round(d.remaining)) }),
  seat_joined: (d, who) => t("%(name)s joined as %(who)s.", { name: d.name, who }),
  seat_rejoined: (d, who) => t("%(name)s joined as %(who)s again (the first answer was lost).", { name: d.name, who }),
  seat_left: (_d, who) => t("%(who)s left: the seat is open again.", { who }),
  seat_reclaimed: (d, who, n) => t("%(who)s took the seat back from the bot %(bot)s.", { who, bot: n.bot(d.bot) }),
  seat_replaced: (d, who, n) => t("%(who)s took too long: the bot %(bot)s plays the seat now.", { who, bot: n.bot(d.bot) }),
  seats_filled: () => t("Every seat is taken: the game begins."),
  solo_upgrade: (d, who, n) => t("%(who)s took the wagon upgrade %(upgrade)s.", { who, upgrade: n.component(d.upgrade) }),
  steed_dealt: (d, who, n) => t("%(who)s was dealt the steed %(steed)s.", { who, steed: n.component(d.steed) }),
  steed_gained: (d, who, n) => t("%(who)s gained the steed %(steed)s", { who, steed: n.component(d.steed) }) + from(n, d.source),
  town_visited: (d, who, n) => (d.town ? t("%(who)s visited %(town)s.", { who, town: n.town(d.town) }) : t("%(who)s visited no town.", { who })),
  traded: (d, who, n) => t("%(who)s traded %(gave)s for %(got)s at %(building)s.", { who, gave: n.effect(d.gave), got: n.effect(d.got), building: n.component(d.building) }),
  travel_dice_rerolled: (d, who) => t("%(who)s paid a lantern to reroll the travel dice: %(dice)s.", { who, dice: dice(d.dice) }),
  travel_die_duplicated: (d, who, n) => t("%(companion)s copied a travel die %(value)s for %(who)s.", { companion: n.component(n.companionOf(d.card)), value: d.value, who }),
  travel_die_taken: (d, who) =>
    (d.face !== d.die ? t("%(who)s took the travel die %(die)s (counting as %(face)s).", { who, die: d.die, face: d.face })
      : t("%(who)s took the travel die %(die)s.", { who, die: d.die })),
  turn_started: (d, who) => t("%(who)s's turn (round %(round)s).", { who, round: d.round }),
  undone: (d, who) =>
    (d.versions.length === 1 ? t("%(who)s took back their last action.", { who })
      : t("%(who)s took back their last actions (versions %(first)s–%(last)s).", { who, first: d.versions[0] ?? "", last: d.versions[d.versions.length - 1] ?? "" })),
  upgrade_gained: (d, who, n) => t("%(who)s gained the wagon upgrade %(upgrade)s.", { who, upgrade: n.component(d.upgrade) }),
  upgrade_unused: (d, who, n) => because(t("%(upgrade)s did nothing for %(who)s", { upgrade: n.component(d.upgrade), who }), reason(d.reason)),
  wheel_rotated: (d, _who, n) => t("The market wheel rotated: %(good)s is now worth $5.", { good: n.goodType(d.at_5) }),
};

function gainWords(d: { resource?: string; amount?: number; good?: string; value?: number }, n: Names): string {
  if (d.good !== undefined) return n.good(d.good);
  if (d.resource === "illuminated") return d.value === undefined ? t("an illuminated die") : t("an illuminated die (%(value)s)", { value: d.value });
  if (d.resource !== undefined) return count(d.amount ?? 1, d.resource);
  return t("something");
}

/** A known event in words: ``WORDS`` indexed by the event's type takes that type's data (the
 * correlated form TypeScript follows without a cast). */
function known<K extends Known>(type: K, data: DataOf[K], who: string, names: Names, seat: (n: number) => string): string {
  const words: Words[K] = WORDS[type];
  return words(data, who, names, seat);
}

/** An event in words; ``seat`` names a seat ("Player 2", "you"). */
export function describe(event: GameEvent, names: Names, seat: (n: number) => string): string {
  const who = event.seat === null ? t("The table") : seat(event.seat);
  // Only fan plugins' events carry ``plugin``: without it, the event is a KnownEvent.
  if (!("plugin" in event)) return known(event.type, event.data, who, names, seat);
  // A fan plugin's event: its type and data, ids by name where the catalogue knows them.
  const parts = Object.entries(event.data).map(([key, value]) => `${humanize(key).toLowerCase()}: ${plain(value, names)}`);
  return `${who}: ${humanize(event.type).toLowerCase()}${parts.length ? ` (${parts.join("; ")})` : ""}.`;
}

function plain(value: unknown, names: Names): string {
  if (typeof value === "string") return names.components.has(value) ? names.component(value) : value;
  if (Array.isArray(value)) return value.map((v) => plain(v, names)).join(", ");
  if (value !== null && typeof value === "object") return JSON.stringify(value);
  return String(value);
}
