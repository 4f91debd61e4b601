"""Values made once for an object that never changes but cannot be a dict key, kept by its identity.

A game's board is such an object: a frozen dataclass of mappings, which cannot be hashed. What is
worked out from it once (the map's label layout, the order language's resolved names, the battle
odds' tables) is kept in a :class:`ByIdentity`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["ByIdentity"]

K = TypeVar("K")
V = TypeVar("V")


class ByIdentity(Generic[K, V]):
    """``make(obj)``, made once for each ``obj`` and kept by ``id(obj)``. The object is kept with its
    value, so that its id names it for as long as the entry lives (an id is reused only once its
    object is gone). The memo starts afresh past ``kept`` objects: a game uses one board, tests make
    many."""

    def __init__(self, make: Callable[[K], V], kept: int = 8) -> None:
        self.make = make
        self.kept = kept
        self._values: dict[int, tuple[K, V]] = {}

    def __call__(self, obj: K) -> V:
        hit = self._values.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        if len(self._values) >= self.kept:
            self._values.clear()
        value = self.make(obj)
        self._values[id(obj)] = (obj, value)
        return value

    def __len__(self) -> int:
        return len(self._values)

    def values(self) -> list[V]:
        """The values kept now (a caller that clears what they hold, a benchmark that measures them cold)."""
        return [value for _obj, value in self._values.values()]
