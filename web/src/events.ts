// The event log in words. One sentence per known event type (a mapped type over the document's
// KnownEvent union: an event type added to the contract fails the build until it has words
// here); fan plugins' events (those with `plugin`) are told from their type and data.
import type { GameEvent, KnownEvent } from "./api";
import { duration } from "./lobby";
import { count, humanize, type Names } from "./names";

type Known = KnownEvent["type"];
type DataOf = { [K in Known]: Extract<KnownEvent, { type: K }>["data"] };
type Words = { [K in Known]: (data: DataOf[K], who: string, names: Names, seat: (n: number) => string) => string };

const route = (id: string) => (id === "shortcut" ? "a shortcut" : "the dark road");
const from = (names: Names, source: string) => (source ? ` (${names.source(source)})` : "");
const dice = (values: readonly number[]) => (values.length ? values.join(", ") : "none");

const WORDS: Words = {
  activated: (d, who, n) => `${who} activated ${d.what === "building" ? n.component(d.target) : n.district(d.target)}.`,
  answered: (d, who) => `${who} answered ${humanize(d.decision).toLowerCase()}: ${d.option}.`,
  bought: (d, who, n) => `${who} bought ${n.good(d.good)} for ${count(d.cost, "coins")}.`,
  building_unused: (d, who, n) => `${n.component(d.building)} did nothing for ${who}: ${d.reason}.`,
  caravan_answer: (d, who) => (d.join ? `${who} joins the caravan.` : `${who} stays home.`),
  caravan_declared: (d, who, n) => `${who} leads a caravan to ${n.town(d.town)} by ${route(d.route)}.`,
  commission_delivered: (d, who, n) =>
    `${who} delivered a commission (${n.commission(d.commission)}) with ${
      d.goods ? n.goodList(d.goods) : count(d.goods_count ?? 0, "goods")
    } for ${count(d.prestige, "prestige")}.`,
  commission_discarded: (d, who, n) => `${who} discarded a commission (${n.commission(d.commission)}).`,
  commission_gained: (d, who, n) => `${who} took a commission (${n.commission(d.commission)})${from(n, d.source)}.`,
  companion_discarded: (d, who, n) => `${who} discarded ${n.component(n.companionOf(d.card))}.`,
  companion_passed: (d, who, n, seat) => `${n.component(n.companionOf(d.card))} moved on from ${who} to ${seat(d.to)}.`,
  companion_returned: (d, who, n) => `${who} returned ${n.component(n.companionOf(d.card))}.`,
  companion_taken: (d, who, n) =>
    `${who} took ${n.component(d.companion)}${d.travel_die ? " with the extra travel die" : ""}.`,
  companion_used: (d, who, n) => `${who} used ${n.component(d.companion)}: ${n.ability(d.companion, d.ability)}.`,
  concern_action: (d, who, n) =>
    d.action ? `${who} resolved ${humanize(d.action).toLowerCase()}${d.district ? ` at ${n.district(d.district)}` : ""}.`
      : `${who} applied no action of its card.`,
  concern_card: (d, who) => `${who} drew its action card ${d.name}.`,
  concern_choice: (d, who, _n, seat) => `${who} chose for ${seat(d.concern)}: ${humanize(d.what).toLowerCase()}, ${d.option}.`,
  concern_deck_shuffled: (d, who) => `${who} reshuffled its action deck (${d.cards} cards).`,
  concern_sold: (d, who, n) => `${who} sold ${count(d.goods_count, "goods")} to ${n.hero(d.hero)} for ${count(d.coins, "coins")}.`,
  dark_market_moved: (d, _who, n) => `The dark market marker moved ${n.steps(d.steps)} to the ${d.space} space.`,
  deed_gained: (d, who, n) => `${who} gained a deed${from(n, d.source)}.`,
  deed_gained_private: (d, who, n) => `${who} gained the deed ${n.component(d.deed)} (secret).`,
  deed_kept: (d, who, n) => `${who} kept the deed ${n.component(d.deed)} (secret).`,
  deed_revealed: (d, who, n) => `${who} revealed the deed ${n.component(d.deed)}.`,
  deliveries_done: (_d, who) => `${who} finished delivering.`,
  dice_reset: (_d, who) => `${who} reset the locked night dice to 1, 2, 3.`,
  die_bumped: (d, who) =>
    `${who} bumped the ${d.to_pool} from slot #${d.slot} into the action pool${
      d.locked === null ? "" : `, locking a ${d.locked} there`
    }.`,
  discarded: (d, who) => `${who} discarded ${count(d.amount, d.resource)} (${d.reason}).`,
  event_revealed: (d) => `Event card: ${d.name}. Travel dice: ${dice(d.dice)}.`,
  excursion: (d, who) => `${who} chose ${d.choice === "ruins" ? "the Ruins of Yin" : humanize(d.choice).toLowerCase()} at Yurg's Excursions.`,
  gained: (d, who, n) => `${who} gained ${gainWords(d, n)}${from(n, d.source)}.`,
  game_finished: (d, _who, _n, seat) => `The game is over. ${d.winners.length > 1 ? "Winners" : "Winner"}: ${d.winners.map(seat).join(", ")}.`,
  game_started: (d, _who, n) => `The game was set up for ${d.players} seats, with ${d.buildings.map((b) => n.component(b)).join(", ")}.`,
  good_flipped: (d, who, n) => `${who}'s ${n.good(d.good)} became ${n.good(d.to)}${from(n, d.source)}.`,
  good_fortune: (d, who) => `${who} took the good fortune: ${humanize(d.choice).toLowerCase()}.`,
  hero_delivered: (d, who, n) => `${who} delivered ${n.hero(d.hero)} to ${n.town(d.town)}.`,
  hero_discarded: (d, who, n) => `${who} discarded ${n.hero(d.hero)}.`,
  hero_joined: (d, who, n) => `${n.hero(d.hero)} joined ${who}${from(n, d.source)}.`,
  hero_lost: (d, who, n) => `${n.hero(d.hero)} left ${who}${from(n, d.source)}.`,
  illuminated_returned: (_d, who) => `${who} returned an illuminated die.`,
  illuminated_to_pool: (d, who) => `${who} moved an illuminated ${d.value} into the action pool.`,
  lost: (d, who, n) => `${who} lost ${gainWords(d, n)}${from(n, d.source)}.`,
  market_die_changed: (d, _who, n) => `A market die turned from ${n.goodType(d.frm)} to ${n.goodType(d.to)}.`,
  market_rerolled: () => "The market dice bought this turn were rerolled.",
  moved: (d, who, n) =>
    `${who} moved ${n.steps(d.steps)}${d.horseshoe ? " with a horseshoe" : ""} to ${n.space(d.position)}.`,
  night_dice_refreshed: (d, who) =>
    `${who} rerolled the spent night dice into the main reserve (${d.removed} removed): ${dice(d.reserve)}.`,
  oracle_die_rolled: (d, who, n) =>
    `The oracle die rolled ${d.number ?? "a face"} for ${who}: ${n.effects(d.face)}${from(n, d.source)}.`,
  option_withdrawn: (d, who) =>
    `An answer of ${who} (${humanize(d.decision).toLowerCase()}: ${d.option}) was withdrawn: ${d.plugin ? `plugin ${d.plugin} failed` : "it failed"} (${d.reason}).`,
  paid: (d, who, n) => `${who} paid ${count(d.amount, d.resource)}${from(n, d.source)}.`,
  round_ended: (d) => `Round ${d.round} ended.`,
  ruins_die_rolled: (d, who, n) => `${who} rolled the ruins die: ${n.effect(d.face)}${d.reroll ? " (a reroll)" : ""}.`,
  ruins_moved: (d, _who, n) => `The ruins marker moved ${n.steps(d.steps)} to the ${humanize(d.space).toLowerCase()} space.`,
  seat_clock_low: (d, who) => `${who}'s time bank is running low: ${duration(Math.round(d.remaining))} left.`,
  seat_joined: (d, who) => `${d.name} joined as ${who}.`,
  seat_rejoined: (d, who) => `${d.name} joined as ${who} again (the first answer was lost).`,
  seat_left: (_d, who) => `${who} left: the seat is open again.`,
  seat_reclaimed: (d, who, n) => `${who} took the seat back from the bot ${n.bot(d.bot)}.`,
  seat_replaced: (d, who, n) => `${who} took too long: the bot ${n.bot(d.bot)} plays the seat now.`,
  seats_filled: () => "Every seat is taken: the game begins.",
  solo_upgrade: (d, who, n) => `${who} took the wagon upgrade ${n.component(d.upgrade)}.`,
  steed_dealt: (d, who, n) => `${who} was dealt the steed ${n.component(d.steed)}.`,
  steed_gained: (d, who, n) => `${who} gained the steed ${n.component(d.steed)}${from(n, d.source)}.`,
  town_visited: (d, who, n) => (d.town ? `${who} visited ${n.town(d.town)}.` : `${who} visited no town.`),
  traded: (d, who, n) => `${who} traded ${n.effect(d.gave)} for ${n.effect(d.got)} at ${n.component(d.building)}.`,
  travel_dice_rerolled: (d, who) => `${who} paid a lantern to reroll the travel dice: ${dice(d.dice)}.`,
  travel_die_duplicated: (d, who, n) => `${n.component(n.companionOf(d.card))} copied a travel die ${d.value} for ${who}.`,
  travel_die_taken: (d, who) => `${who} took the travel die ${d.die}${d.face !== d.die ? ` (counting as ${d.face})` : ""}.`,
  turn_started: (d, who) => `${who}'s turn (round ${d.round}).`,
  undone: (d, who) =>
    `${who} took back ${d.versions.length === 1 ? "their last action" : `their last actions (versions ${d.versions[0]}–${d.versions[d.versions.length - 1]})`}.`,
  upgrade_gained: (d, who, n) => `${who} gained the wagon upgrade ${n.component(d.upgrade)}.`,
  upgrade_unused: (d, who, n) => `${n.component(d.upgrade)} did nothing for ${who}: ${d.reason}.`,
  wheel_rotated: (d, _who, n) => `The market wheel rotated: ${n.goodType(d.at_5)} is now worth $5.`,
};

function gainWords(d: { resource?: string; amount?: number; good?: string; value?: number }, n: Names): string {
  if (d.good !== undefined) return n.good(d.good);
  if (d.resource === "illuminated") return d.value === undefined ? "an illuminated die" : `an illuminated die (${d.value})`;
  if (d.resource !== undefined) return count(d.amount ?? 1, d.resource);
  return "something";
}

/** A known event in words: ``WORDS`` indexed by the event's type takes that type's data (the
 * correlated form TypeScript follows without a cast). */
function known<K extends Known>(type: K, data: DataOf[K], who: string, names: Names, seat: (n: number) => string): string {
  const words: Words[K] = WORDS[type];
  return words(data, who, names, seat);
}

/** An event in words; ``seat`` names a seat ("Player 2", "you"). */
export function describe(event: GameEvent, names: Names, seat: (n: number) => string): string {
  const who = event.seat === null ? "The table" : seat(event.seat);
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
