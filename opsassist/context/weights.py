"""How much an unpinned message still weighs (seed 000).

By turns: `w = max(min_weight, exp(-decay_rate * age))` with `age = current_turn - turn`.
By wall clock (a half-life in minutes), for incidents that pause and resume:
`w = max(min_weight, 0.5 ** (age_minutes / half_life))`.
Pinned messages do not decay; they are held at full weight and re-sent in the pin block.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Literal


@dataclass(frozen=True)
class DecayPolicy:
    mode: Literal["turns", "minutes"] = "turns"
    decay_rate: float = 0.05
    min_weight: float = 0.2
    half_life_minutes: float = 30.0
    verbatim_threshold: float = 0.4
    """Messages weighing more than this go out verbatim; at or below it they are condensed."""

    def weight(self, *, turn: int, current_turn: int, created_at: str, now: datetime) -> float:
        if self.mode == "minutes":
            age_minutes = max(0.0, (now - datetime.fromisoformat(created_at)).total_seconds() / 60)
            raw = 0.5 ** (age_minutes / self.half_life_minutes)
        else:
            raw = math.exp(-self.decay_rate * max(0, current_turn - turn))
        return max(self.min_weight, raw)

    def verbatim(self, weight: float) -> bool:
        return weight > self.verbatim_threshold
