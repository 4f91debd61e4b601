"""How many worker processes a parallel pass (``pbem inbox``, ``pbem verify``) uses by default,
the heap's care around forking them, a call run in a forked child meanwhile (:class:`Forked`), and
work shared among forked workers in contiguous runs (:class:`Runs`)."""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["Forked", "Runs", "cores", "fork_ready", "forks_done", "forking"]


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


class Forked:
    """A call running in a forked child process, whose value comes back pickled through a pipe: work
    that one core does while this process does something else (a fork shares everything loaded, so
    the child starts at once). :meth:`result` waits for it; None when the child could not give it
    (it failed, or was killed): the caller then does the work itself. Pair every :meth:`start` with
    :meth:`result` or :meth:`abandon` (which kills the child): either reaps it."""

    def __init__(self, pid: int, fd: int, group: bool = False) -> None:
        self.pid, self._fd, self._group = pid, fd, group

    @classmethod
    def start(cls, fn: Callable[..., object], *args: object, group: bool = False) -> Forked:
        """Call ``fn(*args)`` in a forked child. ``group``: the child leads a process group of its own,
        which takes in the processes it forks (its workers), so that stopping it stops them too."""
        into, out = os.pipe()
        try:
            pid = os.fork()
        except BaseException:
            os.close(into)
            os.close(out)
            raise
        if pid == 0:  # the child: the value, or nothing, then gone without this process's exit work
            status = 1
            try:
                os.close(into)
                if group:
                    with contextlib.suppress(OSError):
                        os.setpgid(0, 0)
                # The pipe's end is the child's alone: a process it forks closes its copy at once, so the
                # answer ends when the child does, whatever becomes of its own children.
                mine = [out]

                def close_mine() -> None:
                    for fd in mine:
                        os.close(fd)

                os.register_at_fork(after_in_child=close_mine)
                data = pickle.dumps(fn(*args), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(mine.pop(), "wb") as f:
                    f.write(data)
                status = 0
            finally:
                os._exit(status)
        os.close(out)
        if group:
            with contextlib.suppress(OSError):  # (the child does it too: whichever runs first)
                os.setpgid(pid, pid)
        return cls(pid, into, group)

    def result(self) -> Any:
        """The call's value, or None when the child gave none (interrupted while waiting: the child is killed)."""
        chunks = []
        try:
            with os.fdopen(self._fd, "rb") as f:
                while chunk := f.read(1 << 16):
                    chunks.append(chunk)
        except BaseException:
            self._kill()
            raise
        finally:
            _, status = os.waitpid(self.pid, 0)
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            return None
        try:
            return pickle.loads(b"".join(chunks))
        except Exception:  # noqa: BLE001 - a value cut short: the caller does the work itself
            return None

    def abandon(self) -> None:
        """Kill the child (and its group) and reap it (its value is not wanted: this process failed meanwhile)."""
        self._kill()
        with contextlib.suppress(OSError):
            os.close(self._fd)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)

    def _kill(self) -> None:
        if self._group:
            with contextlib.suppress(OSError):
                os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)


class Runs:
    """The indexes ``start .. stop - 1`` shared among ``parts`` forked workers in contiguous runs: worker
    ``w`` walks run ``w`` (the ``w``-th of ``parts`` near-equal slices) forward; a worker whose run is
    done takes the last index of the longest run left (the first of equals), and so on backward from
    there. So each worker mostly works on neighbouring items, which share the most of what its caches
    keep (a verify worker renders consecutive steps: the same map layouts and report rows recur), and
    no worker idles while another has work left. The bounds live in shared memory under one lock:
    make the :class:`Runs` before forking the workers (a ``fork`` start method)."""

    def __init__(self, start: int, stop: int, parts: int) -> None:
        import multiprocessing  # (here: every command imports this module, few fork workers)

        ctx = multiprocessing.get_context("fork")
        parts = max(1, parts)
        edges = [start + (stop - start) * i // parts for i in range(parts + 1)]
        self.parts = parts
        self._lock = ctx.Lock()
        self._bounds = ctx.RawArray("l", [e for i in range(parts) for e in (edges[i], edges[i + 1])])

    def take(self, worker: int) -> int | None:
        """The next index for ``worker`` (``0 .. parts - 1``), or None when every index is taken."""
        b = self._bounds
        with self._lock:
            lo, hi = b[2 * worker], b[2 * worker + 1]
            if lo < hi:
                b[2 * worker] = lo + 1
                return lo
            victim = max(range(self.parts), key=lambda i: b[2 * i + 1] - b[2 * i])  # (the first of equals)
            if b[2 * victim + 1] <= b[2 * victim]:
                return None
            b[2 * victim + 1] -= 1
            return b[2 * victim + 1]
