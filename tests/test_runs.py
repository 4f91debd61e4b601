"""``pbem.workers.Runs`` hands every index out exactly once, each worker mostly a contiguous run of its own
(what keeps a verify worker's caches warm from step to step), and lets no worker idle while work is left."""

from __future__ import annotations

import multiprocessing as mp
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.workers import Forked, Runs

pytestmark = pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="Runs is shared by forked workers")


def test_each_worker_walks_its_own_slice_forward() -> None:
    runs = Runs(1, 11, 2)
    assert [runs.take(0) for _ in range(3)] == [1, 2, 3]
    assert [runs.take(1) for _ in range(5)] == [6, 7, 8, 9, 10]


def test_a_worker_done_with_its_slice_takes_the_far_end_of_the_longest_left() -> None:
    runs = Runs(0, 12, 3)  # slices 0-3, 4-7, 8-11
    assert [runs.take(0) for _ in range(4)] == [0, 1, 2, 3]
    assert runs.take(2) == 8
    # worker 0 is done: worker 1's slice (4 left) is the longest, taken from its end, backward (the
    # first of equal runs: after 7, both have 3 left)
    assert [runs.take(0) for _ in range(2)] == [7, 6]
    assert runs.take(1) == 4
    # now slice 2 (9-11, 3 left) is the longest
    assert runs.take(0) == 11
    assert runs.take(1) == 5
    assert [runs.take(1) for _ in range(3)] == [10, 9, None]
    assert runs.take(0) is None and runs.take(2) is None


@given(st.integers(0, 5), st.integers(0, 40), st.integers(1, 6), st.lists(st.integers(0, 5), max_size=200))
@settings(max_examples=200, deadline=None)
def test_every_index_is_taken_once_in_any_order_of_asking(start: int, n: int, parts: int, asks: list[int]) -> None:
    runs = Runs(start, start + n, parts)
    taken: list[int] = []
    for w in [a % parts for a in asks] + [w for w in range(parts) for _ in range(n + 1)]:
        k = runs.take(w)
        if k is not None:
            taken.append(k)
    assert sorted(taken) == list(range(start, start + n))
    assert all(runs.take(w) is None for w in range(parts))


def _take_all(runs: Runs, worker: int, ready: Any) -> list[int]:
    ready.wait()  # every worker is forked before any takes
    out = []
    while (k := runs.take(worker)) is not None:
        out.append(k)
    return out


def test_forked_workers_share_the_runs() -> None:
    runs, ready = Runs(0, 300, 3), mp.get_context("fork").Barrier(3)
    workers = [Forked.start(_take_all, runs, w, ready) for w in range(3)]
    got = [w.result() for w in workers]
    assert sorted(k for part in got for k in part) == list(range(300))
    for w, part in enumerate(got):
        # what a worker took of its own slice is the slice's start, in order (the others took from its end)
        own = [k for k in part if 100 * w <= k < 100 * (w + 1)]
        assert own == list(range(100 * w, 100 * w + len(own)))
