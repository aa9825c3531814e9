"""``GET /play/how-to-play``: the game in plain words, for someone who never read the rules.

One HTML page, written here (no script: it reads without JavaScript and prints), linked from
every page of ``/play``. It sums up a game and a turn in plain words, each point citing the
rulebook's page, and quotes the published English rulebook (Elf Creek Games) on those pages:
the links go to the quotes, each headed by its page. The messages are whole sentences in the
caller's language, through the engine's words (:func:`darkroad.core.wording.say`); the
rulebook is quoted as printed: in Hungarian, the Hungarian edition's own words on the same page
(the core catalog's translation of each English passage).
"""

from __future__ import annotations

from functools import cache
from html import escape

from attrs import frozen

from darkroad.core import i18n
from darkroad.core.i18n import N_
from darkroad.core.wording import say


@frozen
class Quote:
    """A passage of the rulebook, and its page."""

    page: int
    text: str


@frozen
class Part:
    """A part of the guide: a title, plain words (each with the rulebook's page it sums up)
    and the rulebook's own words."""

    id: str
    title: str
    points: tuple[tuple[str, int | None], ...]
    """Plain words, each with the rulebook's page it sums up (None: this table's own ways)."""
    quotes: tuple[Quote, ...]


PARTS: tuple[Part, ...] = (
    Part("goal", N_("The goal"), (
        (N_("You are a merchant of Highreach. You earn coins by selling goods, and prestige by delivering goods "
           "and heroes to the outlying towns."), 13),
        (N_("At the end, your score is the lower of your coins and your prestige, plus your victory points: "
           "a merchant with 40 coins and 5 prestige scores 5. Keep both growing."), 13),
        (N_("The table shows each player's projected score on their wagon: the score if the game ended now. "
           "Other players' coins are hidden, so you see only the part of their score you may know."), 13),
    ), (
        Quote(13, N_("Reveal and count up your coins and prestige. Reveal any completed deeds that give you coins or "
                  "prestige and add them to your totals. Then compare your coins and prestige. The lower of the "
                  "two values is your base score.")),
        Quote(13, N_("Count up your victory points. Reveal any completed deeds that give you victory points and add "
                  "them to your total. Add 1 victory point for each illuminated die that you have but did not use.")),
    )),
    Part("round", N_("A game and a round"), (
        (N_("A game has 13 rounds. In each round every player takes one turn, in seat order."), 6),
        (N_("Your turn has four steps: Plan, Move, Activate, and Rest. The table asks you one decision at a "
           "time; its buttons are every choice the rules allow you."), 6),
    ), (
        Quote(6, N_("The game is played in 13 rounds, thematically corresponding roughly to the 13 weeks of winter. "
                 "In each round, the start player takes the first turn, then each other player takes a turn, in "
                 "clockwise order.")),
        Quote(6, N_("When it is your turn, you must perform these 4 steps in order:")),
    )),
    Part("plan", N_("Plan: choose your dice"), (
        (N_("Put a die of your reserve into one of your three locked slots. The die that was there goes to your "
           "action pool, and you take that slot's action."), 6),
        (N_("Slot #1 crafts a basic good: the crafting chart turns the value of the new die into a good."), 6),
        (N_("Slot #2 gives you a lantern, or moves an illuminated die into your action pool."), 6),
        (N_("Slot #3 gives you 2 coins, or turns the market wheel one space."), 6),
    ), (
        Quote(6, N_("Use that night die to bump a night die from one of your 3 locked slots. The die that is bumped "
                 "from the locked slot goes into your action pool and the die from your main reserve takes its "
                 "place in that locked slot.")),
        Quote(6, N_("Craft a basic good. To do this, refer to the crafting chart to determine which basic good "
                 "matches the value of the newly locked night die.")),
        Quote(6, N_("Gain 1 lantern from the supply and store it on your wagon -OR- move an illuminated die from your "
                 "special reserve to your action pool.")),
        Quote(6, N_("Gain 2 coins from the supply -OR- rotate the market wheel 1 space clockwise.")),
    )),
    Part("move", N_("Move and activate"), (
        (N_("Move your wagon clockwise around the Ringway by the value of one die of your action pool. A "
           "horseshoe moves it one more space, either way."), 7),
        (N_("Your wagon then stands between two districts. With a night die you activate one of them; with an "
           "illuminated die as well, both of them and the building between them."), 7),
    ), (
        Quote(7, N_("Choose a die from your action pool to count as your movement. Move your wagon pawn clockwise "
                 "around the Ringway a number of spaces equal to the die value.")),
        Quote(7, N_("If you have both a night die and an illuminated die in your action pool, you will activate "
                 "both of the adjacent districts and the connected building that is between them …")),
    )),
    Part("districts", N_("The districts"), (
        (N_("The Great Bazaar sells goods at the prices of the market wheel. A second good of the same section "
           "is free."), 8),
        (N_("The Queen's Commissions give you a commission: a town's order for up to three goods."), 9),
        (N_("The Dark Market: pay 1 to 4 coins to move its marker, and take what the marker stops on."), 9),
        (N_("The Ringway Inn: sell goods to a hero for coins; the hero then rides with you to their town."), 10),
        (N_("Yurg's Excursions: search the Ruins of Yin for an upgraded good, or lead a caravan to an outlying "
           "town."), 11),
    ), (
        Quote(8, N_("Add up their total cost, as indicated by their current values. The cost for each section is only "
                 "counted once. If you buy 2 goods from a single section, the second is free.")),
        Quote(9, N_("When you activate this district, gain the top commission from the stack of your choice and place "
                 "it in one of the commission slots on your wagon.")),
        Quote(10, N_("Gain coins from the supply for the sold goods, based on their current values. In addition, gain "
                  "1 blazing quartz and 1 extra coin from the supply for each upgraded good sold.")),
        Quote(11, N_("In this district, you can travel either to the nearby Ruins of Yin to find upgraded goods or to "
                  "one of the outlying towns to deliver goods and heroes.")),
    )),
    Part("travel", N_("Travel to the outlying towns"), (
        (N_("The leader picks a companion, a route and a town; the others may join the caravan."), 11),
        (N_("An event card is revealed and the travel dice rolled: each traveller takes a die and gets what the "
           "card shows for its value."), 12),
        (N_("In the town you deliver commissions (1, 3 or 6 prestige for 1, 2 or 3 goods, and 1 more for each "
           "upgraded good) and heroes (their region's reward)."), 12),
        (N_("The leader then takes good fortune: an illuminated die, a deed, coins or a wagon upgrade."), 13),
    ), (
        Quote(12, N_("When a player chooses a travel die, compare the die's face value with the event card to "
                  "determine which reward (dark icons) or penalty (red icons) they receive.")),
        Quote(12, N_("You must deliver at least 1 good. Gain 1/3/6 prestige for delivering 1/2/3 of the requested "
                  "goods …")),
        Quote(13, N_("You now receive 1 or 2 good fortunes, as the caravan leader, based on the chosen route: 1 for "
                  "traveling the dark road or 2 for traveling a shortcut.")),
    )),
    Part("end", N_("The end of the game"), (
        (N_("After round 13 everyone travels once more, to deliver. Then the scores are counted; ties go to the "
           "higher of coins and prestige, then to gifts on companions, then to deliveries."), 13),
    ), (
        Quote(13, N_("When the end of the game occurs, all players get to travel one last time. Each player may "
                  "visit the outlying town of their choice in order to deliver commissions and heroes.")),
        Quote(13, N_("In the case of a tie, apply the following tiebreakers in order: highest discarded base score > "
                  "most gifts on loyal companions > most commissions delivered > most heroes delivered.")),
    )),
    Part("table", N_("At this table"), (
        (N_("The decision comes first. Each button says what it does and what it gives; on a wide screen the "
           "part of the board it is about is shown next to it."), None),
        (N_("A decision with a single answer is taken for you, and the log says so; a setting under the "
           "decision turns this off. Undo takes back your last action until something is revealed or "
           "rolled."), None),
        (N_("After the game, the replay shows every step again, round by round and turn by turn."), None),
    ), ()),
)
"""The guide, part by part."""


def _point(text: str, page: int | None) -> str:
    if page is None:
        return f"<li>{escape(say(text))}</li>"
    link = say("rulebook, page %(page)d", page=page)
    return f'<li>{escape(say(text))} <a class="cite" href="#page-{page}">({escape(link)})</a></li>'


def _quotes(part: Part, anchored: set[int]) -> str:
    items = []
    for quote in part.quotes:
        anchor = f' id="page-{quote.page}"' if quote.page not in anchored else ""
        anchored.add(quote.page)
        # The Hungarian catalog's "translation" of a passage is the Hungarian rulebook's own words
        # on the same page: quoted as printed in either edition.
        text, cite = say(quote.text), say("The rulebook, page %(page)d", page=quote.page)
        items.append(f'<blockquote{anchor}><p>{escape(text)}</p><footer>{escape(cite)}</footer></blockquote>')
    return "".join(items)


def guide(stylesheet: str) -> str:
    """The page's HTML in the caller's language, with ``stylesheet`` (the table's CSS)."""
    return _guide(stylesheet, i18n.current_locale())


def page_head(locale: str, title: str, stylesheet: str, *more: str) -> str:
    """A /play page (the table, this guide) from its doctype to the end of its ``<head>``: its
    language, ``title``, stylesheet and ``more`` lines of the head (each indented), alike on
    every page (no referrer sent, no icon fetched)."""
    extra = "".join(f"\n  {line}" for line in more)
    return f"""<!DOCTYPE html>
<html lang="{locale}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>{escape(title)}</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="{stylesheet}">{extra}
</head>
"""


@cache
def _guide(stylesheet: str, locale: str) -> str:
    """The guide's page, built once a language and stylesheet (what the page is; the rulebook's
    text does not change while the process runs). Building it took 245-255 us against 0.3 us from
    the cache: all of a GET /play/how-to-play's page work, done on the event loop (``timeit`` of
    ``_guide.__wrapped__`` against ``_guide``, 500 calls each, for "en" and "hu")."""
    anchored: set[int] = set()
    parts = []
    # (the messages outside the f-strings: Babel reads no call inside one)
    from_rulebook, page_n = say("From the rulebook"), N_("Page %(page)d")
    for part in PARTS:
        quotes = _quotes(part, anchored)
        parts.append(
            f'<section class="panel guide-part" id="{part.id}" aria-labelledby="{part.id}-title">'
            f'<h2 id="{part.id}-title">{escape(say(part.title))}</h2>'
            f'<ul>{"".join(_point(text, page) for text, page in part.points)}</ul>'
            + (f'<div class="quotes"><h3>{escape(from_rulebook)}</h3>{quotes}</div>' if quotes else "")
            + "</section>")
    pages = "".join(f'<li><a href="#page-{page}">{escape(say(page_n, page=page))}</a></li>'
                    for page in sorted(anchored))
    title, where = say("darkroad: how to play"), say("How to play Merchants of the Dark Road, in plain words")
    intro = say("Each point below says where the rulebook tells it; the links lead to the rulebook's own words, "
                "quoted by page. The full rulebook comes with the game.")
    quoted, again, reference = say("The rulebook's pages quoted"), say("Set up or join a game"), say("API reference")
    return page_head(locale, title, stylesheet) + f"""<body>
  <main id="app" class="guide" data-state="ready">
    <header class="top">
      <h1><a href="/play">darkroad</a></h1>
      <p class="where">{escape(where)}</p>
    </header>
    <p>{escape(intro)}</p>
    <nav aria-label="{escape(quoted)}"><ul class="pages">{pages}</ul></nav>
    {"".join(parts)}
    <footer><a href="/play">{escape(again)}</a> · <a href="/docs">{escape(reference)}</a></footer>
  </main>
</body>
</html>
"""
