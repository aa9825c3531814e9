"""Goods tokens: ``"potion"`` is the basic side of a tile, ``"potion+"`` the upgraded side."""

from __future__ import annotations

UP = "+"


def good_type(good: str) -> str:
    return good[:-1] if good.endswith(UP) else good


def is_upgraded(good: str) -> bool:
    return good.endswith(UP)


def upgraded(kind: str) -> str:
    return kind + UP


def label(good: str) -> str:
    return f"upgraded {good_type(good)}" if is_upgraded(good) else good
