"""Goods storage: does a multiset of goods fit in a player's wagon storage?

A wagon's storage is a grid (6 columns x 5 rows by default). Goods are polyomino
tiles that may be rotated, mirrored and rearranged at any time, so the rules only
ever ask whether a *multiset* of goods fits, and (for display) for one arrangement.

A :class:`StorageSpec` adds capacity beyond the main grid: any-slots (each holds one
good of any shape), small extra grids (e.g. a saddle bag), and fixed tiles that must
also be placed in the main grid.

The check runs on every gain of a good and on every legal-action enumeration: an exact
search, made short by what :class:`Packer` works out once per shape and storage.

This module deliberately imports nothing from the rest of the package.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeAlias

import attrs

from .goods import upgraded
from .memo import Memo

Shape: TypeAlias = tuple[tuple[int, int], ...]
"""Cells ``(row, col)`` of a polyomino, with any anchor."""

Cell: TypeAlias = int | str | None
"""Content of one cell in :meth:`Packer.arrangement`: a good's index, ``"fixed:<i>"`` or empty."""

_Piece: TypeAlias = tuple[tuple[str, Any], int]
"""A placed piece in a cached solution: ``(("good", shape index) | ("fixed", shape), board mask)``."""


def normalise(shape: Iterable[Sequence[int]]) -> Shape:
    """Translate ``shape`` so its minimum row and column are 0, and sort its cells.

    Raises :class:`ValueError` for an empty shape.
    """
    cells = {(int(r), int(c)) for r, c in shape}
    if not cells:
        raise ValueError("a shape needs at least one cell")
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def orientations(shape: Iterable[Sequence[int]]) -> list[Shape]:
    """The distinct normalised orientations of ``shape`` among its 8 rotations/reflections."""
    return list(_orientations(normalise(shape)))


def _orientations(shape: Shape) -> tuple[Shape, ...]:
    seen: dict[Shape, None] = {}
    for mirrored in (False, True):
        cells = [(r, -c) for r, c in shape] if mirrored else list(shape)
        for _ in range(4):
            cells = [(c, -r) for r, c in cells]
            seen.setdefault(normalise(cells), None)
    return tuple(seen)


def _canonical(shape: Iterable[Sequence[int]]) -> Shape:
    """One representative per shape class: equal for shapes equal up to symmetry."""
    return min(_orientations(normalise(shape)))


def _embeds(small: Shape, big: Shape) -> bool:
    """Whether some orientation of ``small`` fits inside the cells of ``big``."""
    big_cells = set(big)
    for o in _orientations(small):
        r0, c0 = o[0]
        for br, bc in big:
            if all((r - r0 + br, c - c0 + bc) in big_cells for r, c in o):
                return True
    return False


def _to_grids(value: Iterable[Sequence[int]]) -> tuple[tuple[int, int], ...]:
    grids = tuple((int(c), int(r)) for c, r in value)
    if any(c < 0 or r < 0 for c, r in grids):
        raise ValueError(f"extra grid sizes must be non-negative: {grids}")
    return grids


def _to_tiles(value: Iterable[Iterable[Sequence[int]]]) -> tuple[Shape, ...]:
    return tuple(normalise(tile) for tile in value)


_non_negative = [attrs.validators.instance_of(int), attrs.validators.ge(0)]


@attrs.frozen(cache_hash=True)  # a memo key of every fit check
class StorageSpec:
    """The storage capacity a player has.

    ``extra_grids`` are ``(cols, rows)`` pairs; ``fixed_tiles`` are shapes that must
    also be placed (in any orientation) in the main grid. Sequences given as lists
    (e.g. from JSON) are converted, and fixed tiles normalised, so equal specs hash equal.
    """

    cols: int = attrs.field(default=6, validator=_non_negative)
    rows: int = attrs.field(default=5, validator=_non_negative)
    any_slots: int = attrs.field(default=0, validator=_non_negative)
    extra_grids: tuple[tuple[int, int], ...] = attrs.field(default=(), converter=_to_grids)
    fixed_tiles: tuple[Shape, ...] = attrs.field(default=(), converter=_to_tiles)


@attrs.frozen
class _Solution:
    slots: tuple[int, ...]
    """Shape indices of the goods put in any-slots."""
    pieces: tuple[_Piece, ...]


@attrs.frozen
class _Setup:
    """The search kinds of one (spec, shapes present): biggest first, fixed tiles included."""

    board: _Board
    labels: list[tuple[str, Any]]
    tables: list[tuple[tuple[int, ...], ...]]
    areas: list[int]
    goods: list[int]
    """Per kind, the shape index of a good, or -1 for a fixed tile."""
    fixed: list[int]
    """Per kind, how many of the fixed tile the spec has (0 for a good)."""


class _Board:
    """The main grid and the extra grids laid out on one bitmask.

    Region ``i`` occupies bits ``offset .. offset + cols*rows``, row-major; region 0 is
    the main grid. One bitmask lets a single search distribute goods between grids.
    """

    def __init__(self, grids: tuple[tuple[int, int], ...]) -> None:
        # Extra grids take the low bits: the search fills the lowest empty cell first,
        # and settling the tiny grids first prunes far more than discovering at the end
        # that they can't take what the main grid left over.
        offsets = [0] * len(grids)
        offset = 0
        for i in [*range(1, len(grids)), 0]:
            offsets[i] = offset
            offset += grids[i][0] * grids[i][1]
        self.regions: list[tuple[int, int, int]] = [  # (offset, cols, rows)
            (start, cols, rows) for start, (cols, rows) in zip(offsets, grids, strict=True)
        ]
        self.cells = offset
        self.full = (1 << offset) - 1
        main_offset, main_cols, main_rows = self.regions[0]
        self.main = ((1 << main_cols * main_rows) - 1) << main_offset
        self._placements: dict[tuple[Shape, bool], tuple[tuple[int, ...], ...]] = {}
        """(shape, main grid only) -> :meth:`placements`: a board's shapes are few (the goods' and
        the fixed tiles'), and laying out every placement of one is much of a search. Saves 9.0%
        of the ``engine`` workload (``benchmarks/instructions.py --workloads engine --without
        placements``)."""

    def placements(self, shape: Shape, main_only: bool) -> tuple[tuple[int, ...], ...]:
        """For each board cell, the masks of every placement of ``shape`` whose lowest cell it is."""
        key = (shape, main_only)
        cached = self._placements.get(key)
        if cached is not None:
            return cached
        by_cell: list[list[int]] = [[] for _ in range(self.cells)]
        regions = self.regions[:1] if main_only else self.regions
        for o in _orientations(shape):
            # Sorted cells: o[0] is the first cell row-major, i.e. the placement's lowest bit.
            ar, ac = o[0]
            height = max(r for r, _ in o) + 1
            width = max(c for _, c in o) + 1
            for offset, cols, rows in regions:
                for top in range(rows - height + 1):
                    for left in range(cols - width + 1):
                        mask = 0
                        for r, c in o:
                            mask |= 1 << (offset + (top + r) * cols + left + c)
                        by_cell[offset + (top + ar) * cols + left + ac].append(mask)
        result = tuple(tuple(masks) for masks in by_cell)
        self._placements[key] = result
        return result

    def locate(self, bit: int) -> tuple[int, int, int]:
        """``(region, row, col)`` of a board bit index."""
        for i, (offset, cols, rows) in enumerate(self.regions):
            if offset <= bit < offset + cols * rows:
                row, col = divmod(bit - offset, cols)
                return i, row, col
        raise IndexError(bit)


@functools.lru_cache(maxsize=64)
def _board(cols: int, rows: int, extra_grids: tuple[tuple[int, int], ...]) -> _Board:
    """The board of a storage's grids, one per size (its placements kept with it): saves 8.7% of
    the ``engine`` workload (``benchmarks/instructions.py --workloads engine --without boards``)."""
    return _Board(((cols, rows), *extra_grids))


def _pack(
    board: _Board,
    tables: Sequence[tuple[tuple[int, ...], ...]],
    areas: Sequence[int],
    counts: list[int],
    weights: Sequence[int],
    code: int,
    failed: set[int],
) -> list[tuple[int, int]] | None:
    """Place ``counts[k]`` pieces of each kind ``k`` on the board.

    Exact search: the lowest empty cell is either covered by a piece anchored there or
    left empty, the latter only while enough free cells remain. ``code`` encodes
    ``counts`` in mixed radix ``weights``; failed ``(mask, code)`` states are recorded
    in ``failed``, which stays valid across calls on the same board and kinds.
    Returns the placed ``(kind, mask)`` pieces.
    """
    full = board.full
    shift = board.cells
    kinds = range(len(counts))
    need = sum(a * n for a, n in zip(areas, counts, strict=True))
    placed: list[tuple[int, int]] = []

    # ``search`` is handed itself (``again``) rather than closing over its own name: a closure
    # referring to itself is a reference cycle, left for the garbage collector on every call.
    def search(again: Callable[..., bool], mask: int, free: int, need: int, code: int) -> bool:
        if need == 0:
            return True
        key = (code << shift) | mask
        if key in failed:
            return False
        low = full & ~mask
        low &= -low
        cell = low.bit_length() - 1
        for k in kinds:
            if counts[k]:
                area = areas[k]
                counts[k] -= 1
                for pm in tables[k][cell]:
                    if not pm & mask:
                        placed.append((k, pm))
                        if again(again, mask | pm, free - area, need - area, code - weights[k]):
                            return True
                        placed.pop()
                counts[k] += 1
        if free > need and again(again, mask | low, free - 1, need, code):
            return True
        failed.add(key)
        return False

    return placed if search(search, 0, board.cells, need, code) else None


_UNSOLVED: Any = object()
"""What :meth:`Packer._solve` finds in its table for a question not asked before (``None`` is
an answer: the goods do not fit)."""


class Packer:
    """Answers "does this multiset of goods fit?" for one set of good footprints.

    What a search of some shapes in some storage needs (the placements of each shape, the
    choices of goods for the any-slots) is worked out once and kept, per value, so one
    long-lived :class:`Packer` per content set is the intended use.
    """

    def __init__(self, footprints: Mapping[str, Iterable[Sequence[int]]], *, cache_size: int = 65536) -> None:
        """``footprints`` maps each good type id to its shape; ``cache_size`` bounds each table
        of what the searches need. Goods are asked about by type id or as tokens: a tile's
        upgraded side (``"potion+"``, :mod:`~darkroad.core.goods`) has its type's shape, so a
        wagon's goods are counted as they are held."""
        self._shapes: list[Shape] = []
        self._shape_of: dict[str, int] = {}
        for good, footprint in footprints.items():
            canon = _canonical(footprint)
            if canon not in self._shapes:
                self._shapes.append(canon)
            self._shape_of[good] = self._shapes.index(canon)
        for good, shape in list(self._shape_of.items()):
            self._shape_of.setdefault(upgraded(good), shape)
        self._areas = [len(s) for s in self._shapes]
        # _beats[a][b]: putting b in an any-slot instead of a never hurts, as a fits where b was.
        self._beats = [[len(a) < len(b) and _embeds(a, b) for b in self._shapes] for a in self._shapes]
        self._monomino = next((s for s, area in enumerate(self._areas) if area == 1), None)
        self._setups: Memo[tuple[StorageSpec, tuple[int, ...]], _Setup] = Memo(cache_size)
        """(spec, shapes present) -> what a search of them needs (:meth:`_setup`): saves 3.4% of
        the ``engine`` workload (``benchmarks/instructions.py --workloads engine --without
        packer-setups``)."""
        self._solved: Memo[tuple[tuple[int, ...], StorageSpec], _Solution | None] = Memo(16384)
        """(goods counted by shape, spec) -> a search's solution, or ``None`` when they do not fit
        (:meth:`_solve`): the whole input of the search, so a game changed by hand is answered
        as any other. Saves 3.2% of the ``greedy`` workload, 2.8% of ``engine`` and 1.8% of
        ``action`` (``benchmarks/instructions.py --workloads greedy,engine,action --without
        packer-solve``): the goods a wagon holds recur from one position to the next, and a bot's
        search asks of the same positions again."""
        self.shown: Memo[tuple[tuple[str, ...], StorageSpec], Any] = Memo(4096)
        """(good tokens, spec) -> this packer's arrangement of them as a view shows it, with its
        JSON (:func:`darkroad.core.view._arranged` fills it): kept with the packer whose answer
        it is, the rest of its input. Saves 67.1% of the ``view`` workload
        (``benchmarks/instructions.py --workloads view --without view-arranged``)."""

    def fits(self, goods: Iterable[str], spec: StorageSpec = StorageSpec()) -> bool:
        """Whether all ``goods`` (good type ids or tokens, in any order) fit in storage ``spec``."""
        return self._solve(self._count(goods), spec) is not None

    def arrangement(self, goods: Iterable[str], spec: StorageSpec = StorageSpec()) -> dict[str, Any] | None:
        """One legal arrangement of ``goods`` in ``spec``, or ``None`` if they don't fit.

        The result is JSON-able::

            {"grid": [[cell] * cols] * rows,            # main grid, row-major
             "extra": [[[cell] * cols] * rows, ...],    # one per extra grid
             "any_slots": [good index, ...]}

        where a cell is the index of a good in ``goods``, ``"fixed:<i>"`` for
        ``spec.fixed_tiles[i]``, or ``None`` when empty.
        """
        goods = list(goods)
        solution = self._solve(self._count(goods), spec)
        if solution is None:
            return None
        board = _board(spec.cols, spec.rows, spec.extra_grids)
        grids: list[list[list[Cell]]] = [
            [[None] * cols for _ in range(rows)] for _, cols, rows in board.regions
        ]

        unused: dict[int, list[int]] = defaultdict(list)
        for index in reversed(range(len(goods))):
            unused[self._shape_of[goods[index]]].append(index)
        unused_fixed: dict[Shape, list[int]] = defaultdict(list)
        for index in reversed(range(len(spec.fixed_tiles))):
            unused_fixed[_canonical(spec.fixed_tiles[index])].append(index)

        any_slots = [unused[shape].pop() for shape in solution.slots]
        for (what, which), mask in solution.pieces:
            content: Cell = unused[which].pop() if what == "good" else f"fixed:{unused_fixed[which].pop()}"
            while mask:
                low = mask & -mask
                region, row, col = board.locate(low.bit_length() - 1)
                grids[region][row][col] = content
                mask ^= low
        return {"grid": grids[0], "extra": grids[1:], "any_slots": any_slots}

    def cache_clear(self) -> None:
        """Forget what the searches worked out, and the arrangements shown."""
        self._setups.clear()
        self._solved.clear()
        self.shown.clear()

    def _count(self, goods: Iterable[str]) -> tuple[int, ...]:
        counts = [0] * len(self._shapes)
        shape_of = self._shape_of
        for good in goods:
            try:
                counts[shape_of[good]] += 1
            except KeyError:
                raise KeyError(f"unknown good type {good!r}") from None
        return tuple(counts)

    def _slot_choices_of(self, counts: tuple[int, ...], k: int) -> list[tuple[int, ...]]:
        """:meth:`_slot_choices` of counts capped at ``k + 1`` (on which alone they depend: at
        most ``k`` goods of a shape go in slots, and a shape left with goods outside them is all
        that matters for domination)."""
        return self._slot_choices(tuple([n if n <= k else k + 1 for n in counts]), k)

    def _slot_choices(self, counts: tuple[int, ...], k: int) -> list[tuple[int, ...]]:
        """The sub-multisets of ``k`` goods worth trying in the any-slots, largest area first.

        A choice holding shape ``a`` while a good of shape ``b`` that ``a`` fits into is
        left for the grids is dominated (swap them), so it is skipped.
        """
        present = [s for s, n in enumerate(counts) if n]
        choices: list[tuple[int, ...]] = []

        def gen(again: Callable[..., None], i: int, left: int, chosen: tuple[int, ...]) -> None:
            # Handed itself (``again``): a closure referring to itself is a reference cycle.
            if left == 0:
                choices.append(chosen)
            elif i < len(present):
                s = present[i]
                for take in range(min(left, counts[s]), -1, -1):
                    again(again, i + 1, left - take, chosen + (s,) * take)

        gen(gen, 0, k, ())
        beats = self._beats

        def dominated(chosen: tuple[int, ...]) -> bool:
            return any(beats[a][b] and counts[b] > chosen.count(b) for a in set(chosen) for b in present)

        choices = [c for c in choices if not dominated(c)]
        choices.sort(key=lambda c: -sum(self._areas[s] for s in c))
        return choices

    def _setup(self, spec: StorageSpec, present: tuple[int, ...]) -> _Setup:
        """What a search of goods of the shapes ``present`` (those of more than one cell) in
        ``spec`` needs, however many of each: worked out once per (spec, shapes)."""
        key = (spec, present)
        setup = self._setups.get(key)
        if setup is not None:
            return setup
        board = _board(spec.cols, spec.rows, spec.extra_grids)
        fixed_counts: dict[Shape, int] = defaultdict(int)
        for tile in spec.fixed_tiles:
            fixed_counts[_canonical(tile)] += 1
        # Search kinds: goods by shape, then fixed tiles (restricted to the main grid).
        # Single-cell goods are left out: they fit iff enough cells stay uncovered, as
        # they can take any cell, so branching on them would only multiply the states.
        labels: list[tuple[str, Any]] = [("good", s) for s in present]
        labels += [("fixed", shape) for shape in fixed_counts]
        shapes = [self._shapes[x] if what == "good" else x for what, x in labels]
        order = sorted(range(len(labels)), key=lambda i: -len(shapes[i]))  # big pieces first
        labels = [labels[i] for i in order]
        shapes = [shapes[i] for i in order]
        tables = [
            board.placements(shape, what == "fixed") for shape, (what, _) in zip(shapes, labels, strict=True)
        ]
        setup = _Setup(
            board=board,
            labels=labels,
            tables=tables,
            areas=[len(shape) for shape in shapes],
            goods=[x if what == "good" else -1 for what, x in labels],
            fixed=[fixed_counts[x] if what == "fixed" else 0 for what, x in labels],
        )
        return self._setups.keep(key, setup)

    def _solve(self, counts: tuple[int, ...], spec: StorageSpec) -> _Solution | None:
        """A solution of goods ``counts`` (per shape) in ``spec``, or ``None`` when they do not fit:
        searched once per question (:attr:`_solved`)."""
        key = (counts, spec)
        found = self._solved.get(key, _UNSOLVED)
        if found is _UNSOLVED:
            found = self._solved.keep(key, self._search(counts, spec))
        return found  # type: ignore[no-any-return]

    def _search(self, counts: tuple[int, ...], spec: StorageSpec) -> _Solution | None:
        """:meth:`_solve`'s search: the any-slot choices in turn, each packed by :func:`_pack`."""
        areas_of = self._areas
        setup = self._setup(spec, tuple(s for s, n in enumerate(counts) if n and areas_of[s] > 1))
        board, labels, tables, areas = setup.board, setup.labels, setup.tables, setup.areas
        maxima = [counts[g] if g >= 0 else f for g, f in zip(setup.goods, setup.fixed, strict=True)]
        weights = []
        radix = 1
        for n in maxima:
            weights.append(radix)
            radix *= n + 1
        piece_area = sum(a * n for a, n in zip(areas, maxima, strict=True))
        monomino = self._monomino

        n_goods = sum(counts)
        k = min(spec.any_slots, n_goods)
        failed: set[int] = set()  # shared by the slot choices: a failed state fails regardless of the path
        for slots in self._slot_choices_of(counts, k) if k else [()]:
            rest = list(maxima)
            if slots:
                for i, g in enumerate(setup.goods):
                    if g >= 0:
                        rest[i] -= slots.count(g)
            filler = 0 if monomino is None else counts[monomino] - slots.count(monomino)
            in_slots = sum(areas_of[s] for s in slots if s != monomino)
            if piece_area - in_slots + filler > board.cells:
                continue
            code = sum(w * n for w, n in zip(weights, rest, strict=True))
            placed = _pack(board, tables, areas, rest, weights, code, failed)
            if placed is None:
                continue
            pieces: list[_Piece] = [(labels[kind], mask) for kind, mask in placed]
            if filler:
                occupied = 0
                for _, mask in placed:
                    occupied |= mask
                free = board.full & ~occupied
                for _ in range(filler):
                    # Main grid first: that is where a player expects loose goods.
                    pool = free & board.main or free
                    low = pool & -pool
                    pieces.append((("good", monomino), low))
                    free ^= low
            return _Solution(slots=slots, pieces=tuple(pieces))
        return None
