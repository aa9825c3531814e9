"""Record (or compare, or refresh) the corpus of seeded games replayed by the tests.

    python scripts/record_games.py                      # re-record tests/data/recorded_games.json.gz
    python scripts/record_games.py --compare OLD.json.gz   # how the current engine plays an old corpus
    python scripts/record_games.py --refresh-state      # state digests only (same play, new representation)
    python scripts/record_games.py --refresh-added-events answered   # a new event type, nothing else changed

The format, the digests and when to re-record: ``tests/recorded_games.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from recorded_games import main  # noqa: E402

if __name__ == "__main__":
    main()
