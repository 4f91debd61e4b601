"""Rng.shuffle draws the words of a long list all at once (pbem.core.rng._words): the same words,
in the same order, as drawing them one by one with Rng.below, rejected words included."""

from __future__ import annotations

import pytest

import pbem.core.rng as rng_module
from pbem.core.rng import Rng, _words


def one_by_one(seed: int, counter: int, n_items: int) -> tuple[list[int], int]:
    r = Rng(seed, counter)
    items = list(range(n_items))
    for i in range(n_items - 1, 0, -1):
        j = r.below(i + 1)
        items[i], items[j] = items[j], items[i]
    return items, r.counter


def test_words_are_next64s() -> None:
    for seed, counter in ((0, 0), (1, 5), ((1 << 64) - 1, 1 << 40), (0x5DEECE66D ^ 77, 123456)):
        r = Rng(seed, counter)
        assert _words(seed, counter, 40) == [r.next64() for _ in range(40)]


@pytest.mark.parametrize("n_items", [0, 1, 2, 5, 6, 7, 8, 9, 13, 27, 64, 255, 256, 300])
def test_shuffle_is_fisher_yates_over_below(n_items: int) -> None:
    for seed in range(25):
        r = Rng(seed * 7919 + 3, seed * 11)
        items = list(range(n_items))
        r.shuffle(items)
        assert (items, r.counter) == one_by_one(seed * 7919 + 3, seed * 11, n_items)


def test_rejected_words_are_skipped_the_same_way(monkeypatch: pytest.MonkeyPatch) -> None:
    # make a word rejected about half the time (the real limits reject one in 2**56 at most)
    monkeypatch.setattr(rng_module, "_LIMIT", tuple(1 << 63 for _ in range(256)))
    rejected = 0
    for seed in range(40):
        for n_items in (6, 8, 13, 30):
            r = Rng(seed, 0)
            items = list(range(n_items))
            r.shuffle(items)
            assert (items, r.counter) == one_by_one(seed, 0, n_items)
            rejected += r.counter - (n_items - 1)
    assert rejected > 100  # the path that draws past the batch was taken
