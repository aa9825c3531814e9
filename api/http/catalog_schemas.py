"""The catalogue of an installation (``GET /v1/catalog``): its components by kind, its content
(goods, towns, heroes, commissions, events) and its bots."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from darkroad.api.http.schema_types import UNSET, Unset, doc


class Component(msgspec.Struct):
    """A component of this installation and the plugin providing it."""

    id: str
    kind: Annotated[str, doc("`building`, `companion`, `steed`, `deed` or `upgrade`.")]
    name: str
    text: str
    plugin: str
    version: Annotated[str, doc("The plugin's version.")]
    builtin: Annotated[bool, doc("Shipped with darkroad (the base game); false for a fan plugin's component. "
                                  "The base game's companions are in every game's deck; others only when a game "
                                  "names them (`companions`).")]
    data: Annotated[dict[str, Any], doc("Kind-specific facts (typed per kind in `CatalogComponents`).")]


# The data of components comes from their plugins, which the engine only reads where it needs
# to: every member is optional (a fan component may leave it out) and plugins may add their own.


class BuildingData(msgspec.Struct, omit_defaults=True):
    """A building's facts."""

    tile: Annotated[int | Unset, doc("The double-sided tile it is printed on: a game has at most one side "
                                      "of each tile.")] = UNSET
    first_game: Annotated[bool | Unset, doc("One of the buildings of the first game.")] = UNSET
    oracle_die: Annotated[
        list[list[str]] | Unset, doc("The Oracle of Lumi: the oracle die's faces, as effects.")
    ] = UNSET


class CompanionAbility(msgspec.Struct, omit_defaults=True):
    """One ability of a companion."""

    id: str
    text: str
    gift: Annotated[str | Unset, doc("What using it costs a loyal companion's owner (its gift).")] = UNSET


class CompanionData(msgspec.Struct, omit_defaults=True):
    """A companion's facts."""

    loyalty: Annotated[str | Unset, doc("`loyal` (stays, takes gifts) or `stray` (moves on).")] = UNSET
    copies: Annotated[int | Unset, doc("Cards of it in the companion deck (absent: 1).")] = UNSET
    abilities: list[CompanionAbility] | Unset = UNSET


class DeedData(msgspec.Struct, omit_defaults=True):
    """A deed's facts: when `criterion` is met (`need`), it gives `amount` of `reward`."""

    reward: Annotated[str | Unset, doc("`coins`, `prestige` or `vp`.")] = UNSET
    amount: int | Unset = UNSET
    criterion: Annotated[str | Unset, doc("When it scores, in words.")] = UNSET
    need: int | Unset = UNSET
    per_extra: Annotated[int | Unset, doc("More reward per unit beyond `need`.")] = UNSET
    max: Annotated[int | Unset, doc("The most it can give.")] = UNSET
    unit: Annotated[str | Unset, doc("What `per_extra` counts.")] = UNSET


class SteedData(msgspec.Struct):
    """A steed's facts (none in the base game; a fan steed may have its own)."""


class UpgradeData(msgspec.Struct, omit_defaults=True):
    """A wagon upgrade's facts."""

    goes_in: Annotated[str | Unset, doc("Where it is placed on the wagon.")] = UNSET
    shape: Annotated[
        list[list[int]] | Unset, doc("The cells it fills in the storage grid, `[row, column]`.")
    ] = UNSET
    any_slots: Annotated[int | Unset, doc("Storage slots for a good of any shape.")] = UNSET


class BuildingComponent(msgspec.Struct):
    """A building."""

    id: str
    kind: Literal["building"]
    name: str
    text: str
    plugin: str
    version: str
    builtin: bool
    data: BuildingData


class CompanionComponent(msgspec.Struct):
    """A companion."""

    id: str
    kind: Literal["companion"]
    name: str
    text: str
    plugin: str
    version: str
    builtin: bool
    data: CompanionData


class SteedComponent(msgspec.Struct):
    """A steed."""

    id: str
    kind: Literal["steed"]
    name: str
    text: str
    plugin: str
    version: str
    builtin: bool
    data: SteedData


class DeedComponent(msgspec.Struct):
    """A deed."""

    id: str
    kind: Literal["deed"]
    name: str
    text: str
    plugin: str
    version: str
    builtin: bool
    data: DeedData


class UpgradeComponent(msgspec.Struct):
    """A wagon upgrade."""

    id: str
    kind: Literal["upgrade"]
    name: str
    text: str
    plugin: str
    version: str
    builtin: bool
    data: UpgradeData


class CatalogComponents(msgspec.Struct):
    """The components by kind."""

    building: list[BuildingComponent]
    companion: list[CompanionComponent]
    steed: list[SteedComponent]
    deed: list[DeedComponent]
    upgrade: list[UpgradeComponent]


Effects = Annotated[list[str], doc("Effects in the engine's effect language (`coins:2`, `good:any`, ...).")]
GoodIds = Annotated[list[str], doc("Good type ids.")]


class GoodType(msgspec.Struct):
    """A type of good: its tiles' shape in the wagon's storage."""

    id: str
    name: str
    footprint: Annotated[list[Annotated[list[int], Meta(min_length=2, max_length=2)]],
                         doc("The cells of its polyomino, `[row, column]` (any orientation fits).")]


class Town(msgspec.Struct):
    """An outlying town."""

    id: str
    name: str
    region: Annotated[str, doc("`north`, `west` or `east`: towns of one region share a caravan's visit.")]
    hero_class: Annotated[str, doc("The class of the heroes travelling there.")]
    reward: Annotated[Effects, doc("Gained per hero delivered there.")]


class HeroCard(msgspec.Struct):
    """A hero card."""

    id: str
    name: str
    hero_class: str
    town: Annotated[str, doc("The town the hero travels to (a town id).")]
    requests: Annotated[GoodIds, doc("The goods the hero buys at the Ringway Inn.")]
    bonus: Annotated[str | None, doc("`lantern`, `horseshoe` or `storage` (a slot for any good), or null.")]
    starting: Annotated[bool, doc("A starting hero (dealt at setup).")]


class CommissionCard(msgspec.Struct):
    """A commission tile."""

    id: str
    town: Annotated[str, doc("The town requesting the goods (a town id).")]
    requests: Annotated[GoodIds, doc("The goods requested.")]


class EventCard(msgspec.Struct):
    """An event card of a caravan's route."""

    id: str
    name: str
    route: Annotated[str, doc("`dark_road` or `shortcut`.")]
    flavor: str
    faces: Annotated[dict[str, list[str]], doc("What each travel die value (`\"1\"`-`\"6\"`) gives, as effects.")]


class CatalogContent(msgspec.Struct):
    """What the content packs print on cards and boards: views name these by id."""

    goods: Annotated[list[GoodType], doc("The good types, in the market wheel's clockwise order.")]
    towns: list[Town]
    heroes: list[HeroCard]
    commissions: list[CommissionCard]
    events: list[EventCard]
    crafting_chart: Annotated[dict[str, str], doc("The basic good crafted for each night die value (`\"0\"`-`\"5\"`).")]
    dark_market: Annotated[dict[str, list[str]], doc("The goods of each space of the dark market ring; the south "
                                                      "space (absent) gives a commission or a deed.")]
    ruins_tablet: Annotated[dict[str, list[str]], doc("The upgraded goods offered by each space of the ruins tablet "
                                                       "(`any`: any good).")]
    ruins_die: Annotated[Effects, doc("The ruins die's six faces.")]
    effect_words: Annotated[
        dict[str, str],
        doc("Every effect, and every list of effects, the content prints (event cards' faces, towns' "
             "rewards, the ruins die, the courtyard banners, components' data such as the oracle die), in "
             "words in the caller's language: keyed by the effects joined with `|` (`lantern:1|prestige:1`: "
             "\"gain 1 lantern and 1 prestige\"). A client shows these rather than wording effects itself."),
    ] = msgspec.field(default_factory=dict)
    extra_names: Annotated[
        dict[str, dict[str, str]],
        doc("The names of the cards of the content packs' other keys, those a plugin plays with (a seat kind's "
             "action cards, say), in the caller's language: by key, then card id (`{\"KEY\": {\"ID\": "
             "\"NAME\"}}`). That plugin's events and view blocks name these cards by id."),
    ] = msgspec.field(default_factory=dict)


class BotInfo(msgspec.Struct):
    """An installed bot: a seat may be played by it (`seats`, `timeout_bot`)."""

    id: str
    name: str
    text: Annotated[str, doc("How it plays.")]
    plugin: str
    version: Annotated[str, doc("The plugin's version.")]


class Catalog(msgspec.Struct):
    """Every component of this installation, by kind (`building`, `companion`, ...), its content
    and its bots."""

    components: CatalogComponents
    content: CatalogContent
    bots: list[BotInfo]
