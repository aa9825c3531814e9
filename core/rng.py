"""A small seeded PRNG whose whole state is four 32-bit ints kept in the game state.

xoshiro128** (Blackman & Vigna): fast, well distributed, and its state serialises
as a plain list, so ``same seed + same actions = identical state`` holds across
processes and Python versions (``random.Random`` state is 625 ints: too big).
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")
MASK = 0xFFFFFFFF


def seed_state(seed: int) -> list[int]:
    """Expand an integer seed into a xoshiro128** state with splitmix64."""
    x = seed & 0xFFFFFFFFFFFFFFFF
    out: list[int] = []
    while len(out) < 4:
        x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        z ^= z >> 31
        out.append(z & MASK)
        if len(out) < 4:
            out.append(z >> 32)
    if not any(out):
        out[0] = 1
    return out


def next_u32(s: list[int]) -> int:
    """Advance the state in place and return the next 32-bit output."""
    s0, s1, s2, s3 = s
    r = (s1 * 5) & MASK
    r = (((r << 7) | (r >> 25)) & MASK) * 9 & MASK
    t = (s1 << 9) & MASK
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = ((s3 << 11) | (s3 >> 21)) & MASK
    s[0], s[1], s[2], s[3] = s0, s1, s2, s3
    return r


def randbelow(s: list[int], n: int) -> int:
    """Uniform integer in ``[0, n)`` without modulo bias."""
    if n <= 0:
        raise ValueError("n must be positive")
    limit = (MASK + 1) - ((MASK + 1) % n)
    while True:
        v = next_u32(s)
        if v < limit:
            return v % n


def roll(s: list[int], sides: int = 6) -> int:
    """A die roll 1..sides."""
    return randbelow(s, sides) + 1


def choice(s: list[int], seq: Sequence[T]) -> T:
    return seq[randbelow(s, len(seq))]


def shuffle(s: list[int], seq: MutableSequence[T]) -> None:
    """Fisher-Yates shuffle in place."""
    for i in range(len(seq) - 1, 0, -1):
        j = randbelow(s, i + 1)
        seq[i], seq[j] = seq[j], seq[i]
