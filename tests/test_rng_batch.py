"""Rng reads its words from blocks computed all at once (pbem.core.rng._words, _block): every draw
reads the words of SplitMix64's plain formula, in order, and a shuffle draws what Rng.below draws one
by one, rejected words included."""

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
    monkeypatch.setattr(rng_module, "LIMITS", tuple(1 << 63 for _ in range(256)))
    rejected = 0
    for seed in range(40):
        for n_items in (6, 8, 13, 30):
            r = Rng(seed, 0)
            items = list(range(n_items))
            r.shuffle(items)
            assert (items, r.counter) == one_by_one(seed, 0, n_items)
            rejected += r.counter - (n_items - 1)
    assert rejected > 100  # the path that draws past the batch was taken


def _splitmix64(seed: int, counter: int) -> int:
    """SplitMix64's word for ``counter`` (written out here, one word at a time: the reference)."""
    mask = (1 << 64) - 1
    z = (seed + counter * 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def _reference_below(words: list[int], n: int) -> int:
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        x = words.pop(0)
        if x < limit:
            return x % n


@pytest.mark.parametrize(("little_endian", "blocks_kept"), [(True, 64), (False, 64), (True, 1)])
def test_every_draw_reads_the_words_of_the_plain_formula(monkeypatch: pytest.MonkeyPatch, little_endian: bool,
                                                         blocks_kept: int) -> None:
    # every mix of draws (a shuffle's words drawn all at once included) reads the words of the plain
    # formula in order, on either byte order, across the blocks' ends, however few blocks are kept
    monkeypatch.setattr(rng_module, "_LITTLE_ENDIAN", little_endian)
    monkeypatch.setattr(rng_module, "_BLOCKS_KEPT", blocks_kept)
    monkeypatch.setattr(rng_module, "_BLOCKS", {})
    for seed in (0, 1, 0x5DEECE66D ^ 42, (1 << 64) - 1):
        r = Rng(seed, 7)
        words = [_splitmix64(seed, c) for c in range(8, 8 + 2000)]
        expected: list[object] = []
        got: list[object] = []
        for k in range(150):
            what = k % 5
            if what == 0:
                got.append(r.next64())
                expected.append(words.pop(0))
            elif what == 1:
                got.append(r.below(k + 1))
                expected.append(_reference_below(words, k + 1))
            elif what == 2:
                got.append(r.die())
                expected.append(_reference_below(words, 6) + 1)
            elif what == 3:
                items = list(range(k % 40))
                r.shuffle(items)
                ref = list(range(k % 40))
                for i in range(len(ref) - 1, 0, -1):
                    j = _reference_below(words, i + 1)
                    ref[i], ref[j] = ref[j], ref[i]
                got.append(items)
                expected.append(ref)
            else:
                got.append(r.choice("abcdefg"))
                expected.append("abcdefg"[_reference_below(words, 7)])
        assert got == expected
        assert r.counter == 8 + 2000 - len(words) - 1



@pytest.mark.parametrize("first_words", [1, 5, 16, 256])
def test_a_short_first_block_reads_the_same_words(monkeypatch: pytest.MonkeyPatch, first_words: int) -> None:
    # a seed's first block starts short and is made whole in place when a draw reads past it: by one
    # draw after another, by a shuffle that reaches past it, and by a clone sharing the block
    monkeypatch.setattr(rng_module, "_FIRST_WORDS", first_words)
    monkeypatch.setattr(rng_module, "_BLOCKS", {})
    for seed in (3, 0x5DEECE66D ^ 9, (1 << 64) - 2):
        words = [_splitmix64(seed, c) for c in range(1, 601)]
        r = Rng(seed)
        got = [r.next64() for _ in range(3)]
        clone = r.clone()
        assert [clone.below(1 << 40) for _ in range(20)] == [w % (1 << 40) for w in words[3:23]]
        items = list(range(30))
        r.shuffle(items)  # from counter 3: past a short block's end
        ref = list(range(30))
        for i, w in zip(range(29, 0, -1), words[3:32]):
            j = w % (i + 1)
            ref[i], ref[j] = ref[j], ref[i]
        assert got == words[:3] and items == ref
        assert [r.next64() for _ in range(500)] == words[32:532]
        assert len(rng_module._BLOCKS[seed, 0]) == 256


@pytest.mark.parametrize("blocks_kept", [64, 1])
def test_words_ahead_are_the_next_words_and_leave_the_counter(monkeypatch: pytest.MonkeyPatch, blocks_kept: int) -> None:
    # Rng.ahead(k) gives what k calls of next64 would give, from any counter (a seed's short first block,
    # across the blocks' ends), and moves nothing
    monkeypatch.setattr(rng_module, "_BLOCKS_KEPT", blocks_kept)
    monkeypatch.setattr(rng_module, "_BLOCKS", {})
    for seed in (0, 3, (1 << 64) - 1):
        for counter in (0, 5, 31, 32, 250, 256, 700):
            for k in (1, 2, 30, 300):
                r = Rng(seed, counter)
                words = r.ahead(k)
                assert r.counter == counter
                assert words == [_splitmix64(seed, c) for c in range(counter + 1, counter + 1 + k)]


@pytest.mark.parametrize("rejecting", [False, True])
def test_skipping_a_shuffle_moves_the_stream_as_the_shuffle_does(monkeypatch: pytest.MonkeyPatch, rejecting: bool) -> None:
    if rejecting:  # about half the words rejected: the draws one by one
        monkeypatch.setattr(rng_module, "LIMITS", tuple(1 << 63 for _ in range(256)))
    for seed in range(30):
        for n_items in (0, 1, 2, 7, 27, 64, 300):
            skipped, shuffled = Rng(seed, seed * 3), Rng(seed, seed * 3)
            skipped.skip_shuffle(n_items)
            shuffled.shuffle(list(range(n_items)))
            assert skipped == shuffled


def test_a_word_under_kept_below_is_kept_by_every_draw_up_to_n() -> None:
    for n in range(1, 257):
        assert rng_module.kept_below(n) == min((rng_module.limit(k) for k in range(2, n + 1)), default=1 << 64)
    for n in (3, 6, 7, 27, 100):  # the largest word kept by all of them reads one word in each
        x = rng_module.kept_below(n) - 1
        assert all(x < rng_module.limit(k) for k in range(2, n + 1))
