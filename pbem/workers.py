"""How many worker processes a parallel pass (``pbem inbox``, ``pbem verify``) uses by default,
and the heap's care around forking them."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["cores", "fork_ready", "forks_done", "forking"]


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it; at least 1)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def fork_ready() -> None:
    """Call right before forking workers: every object made so far leaves the garbage collector's
    generations (:func:`gc.freeze`), so a worker's collections never walk (and so never write to,
    and copy) the pages it shares with this process. Pair it with :func:`forks_done`."""
    gc.freeze()


def forks_done() -> None:
    """The workers are done: the frozen objects are collected as usual again (:func:`gc.unfreeze`)."""
    gc.unfreeze()


@contextmanager
def forking() -> Iterator[None]:
    """:func:`fork_ready` around a block that forks workers and waits for them, then :func:`forks_done`."""
    fork_ready()
    try:
        yield
    finally:
        forks_done()
