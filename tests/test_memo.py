"""``Memo``: the bounded table of the hot paths."""

from __future__ import annotations

from darkroad.core.memo import Memo


def test_a_memo_starts_again_when_full_and_keeps_what_it_is_given() -> None:
    memo: Memo[str, int] = Memo(3)
    assert [memo.keep(k, n) for n, k in enumerate("abc")] == [0, 1, 2]
    assert dict(memo) == {"a": 0, "b": 1, "c": 2} and memo.get("b") == 1
    assert memo.keep("d", 3) == 3
    assert dict(memo) == {"d": 3}  # full: emptied before the new key
    assert memo.keep("d", 4) == 4 and len(memo) == 1
