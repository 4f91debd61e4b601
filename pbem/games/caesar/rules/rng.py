"""The game's single recorded random stream.

A counter-based generator (SplitMix64): the whole state is two integers, so a
position saved as JSON carries its future dice exactly. Every shuffle, die and
Jupiter draw of a game comes from this stream, in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import MutableSequence, Sequence, TypeVar

_MASK = (1 << 64) - 1
T = TypeVar("T")


@dataclass
class Rng:
    seed: int
    counter: int = 0

    def next64(self) -> int:
        self.counter += 1
        z = (self.seed + self.counter * 0x9E3779B97F4A7C15) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs n >= 1")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def die(self) -> int:
        return self.below(6) + 1

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def to_json(self) -> dict[str, int]:
        return {"seed": self.seed, "counter": self.counter}

    @classmethod
    def from_json(cls, data: dict[str, int]) -> "Rng":
        return cls(int(data["seed"]), int(data["counter"]))
