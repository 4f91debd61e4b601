"""With worker processes, ``pbem inbox`` feeds the first game's first message at once while a forked
router reads the other messages (:func:`pbem.transport.inbox._route_and_deliver`): the results, the
game files and the order of each game's messages are those of one process; a router that fails
leaves the routing to the inbox itself, and no router outlives the run."""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from pbem.store import Home
from pbem.transport import inbox
from pbem.workers import Forked
from test_mail import realistic_mailbox, submissions


def _fed(home: Path, raws: list[bytes], jobs: int) -> list[str]:
    run = inbox.ingest(Home(home), "test", list(range(len(raws))), raws.__getitem__, jobs=jobs)
    return [r.line().replace(str(home), "HOME") for r in run.results]


def _routers(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The process id of every router started from now on (Forked.start noted)."""
    started: list[int] = []
    real_start = Forked.start

    def start(fn: Any, *args: Any) -> Forked:
        job = real_start(fn, *args)
        started.append(job.pid)
        return job

    monkeypatch.setattr(Forked, "start", start)
    return started


@pytest.fixture()
def twins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, list[bytes], list[str]]:
    """Two homes holding the same two games, the realistic mailbox's messages (and each one's expected
    line), and a router and its warm-up for a mailbox this small (7 messages: the first game's first,
    then 6 for the router)."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    _keys, messages = realistic_mailbox(a)
    shutil.copytree(a, b)
    monkeypatch.setattr(inbox, "ROUTER_MIN", 2)
    return a, b, [raw for _line, raw in messages], [line for line, _raw in messages]


def test_a_forked_router_feeds_the_games_as_one_process_does(twins: tuple[Path, Path, list[bytes], list[str]],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, raws, expected = twins
    started = _routers(monkeypatch)
    together = _fed(a, raws, jobs=2)
    assert len(started) == 1  # the router ran
    with pytest.raises(ChildProcessError):  # and was reaped
        os.waitpid(started[0], os.WNOHANG)
    alone = _fed(b, raws, jobs=1)
    assert together == alone
    for line, want in zip(together, expected, strict=True):
        assert line.startswith(want), (line, want)
    assert submissions(a) == submissions(b)  # the same rows, in the same order, in each game


def test_a_router_that_dies_leaves_the_routing_here(twins: tuple[Path, Path, list[bytes], list[str]],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, raws, _expected = twins
    here = os.getpid()
    real = inbox._route_each
    routed_here: list[int] = []

    def route_each(*args: Any) -> Any:
        if os.getpid() != here:  # the router: gone without an answer
            os._exit(3)
        routed_here.append(len(args[2]))
        return real(*args)

    monkeypatch.setattr(inbox, "_route_each", route_each)
    together = _fed(a, raws, jobs=2)
    assert routed_here == [len(raws) - 1]  # everything after the first message, routed by the inbox itself
    assert together == _fed(b, raws, jobs=1)
    assert submissions(a) == submissions(b)


def test_a_failure_while_the_router_runs_kills_it(twins: tuple[Path, Path, list[bytes], list[str]],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    a, _b, raws, _expected = twins
    started = _routers(monkeypatch)

    def failing(*_args: Any, **_kw: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(inbox, "_deliver_all", failing)
    with pytest.raises(KeyboardInterrupt):
        _fed(a, raws, jobs=2)
    assert len(started) == 1
    with pytest.raises(ChildProcessError):  # killed and reaped
        os.waitpid(started[0], os.WNOHANG)


def test_forked_gives_the_value_or_none() -> None:
    assert Forked.start(sorted, [3, 1, 2]).result() == [1, 2, 3]
    assert Forked.start(os._exit, 5).result() is None  # the child died without a value
    assert Forked.start(int, "not a number").result() is None  # the call raised in the child


def test_warming_up_renders_a_report_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem import decide
    from store_helpers import dump, make_game

    make_game(tmp_path)
    before = (tmp_path / "g.db").read_bytes()
    rendered: list[str] = []
    real = decide.render_report

    def render(*args: Any, **kw: Any) -> str:
        rendered.append(args[3].format)
        return real(*args, **kw)

    monkeypatch.setattr("pbem.store.render_report", render)
    with Home(tmp_path).open("g") as st:
        kept = dump(st.path)
        st.warm_up()
        assert dump(st.path) == kept
    assert sorted(rendered) == ["html", "text"]
    assert (tmp_path / "g.db").read_bytes() == before


def test_a_warm_up_that_fails_changes_nothing(twins: tuple[Path, Path, list[bytes], list[str]],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.store import Store

    a, b, raws, _expected = twins
    tried: list[str] = []

    def broken(self: Store) -> None:
        tried.append(self.game_id)
        raise RuntimeError("a template that cannot be loaded")

    monkeypatch.setattr(Store, "warm_up", broken)
    assert _fed(a, raws, jobs=2) == _fed(b, raws, jobs=1)
    assert tried == ["g"]
    assert submissions(a) == submissions(b)


def _leaves_a_worker_behind() -> None:
    if os.fork() == 0:  # a worker of the child, still running when the child is gone
        time.sleep(30)
        os._exit(0)
    os._exit(4)  # the child dies without a value


def test_forked_answers_when_the_child_ends_whatever_its_own_children_do() -> None:
    """The answer's pipe is the child's alone (the processes it forks close their copy), and with
    ``group`` they share its process group, which stops them all."""
    began = time.monotonic()
    job = Forked.start(_leaves_a_worker_behind, group=True)
    assert job.result() is None
    assert time.monotonic() - began < 10  # not held open for 30 s by the worker
    os.killpg(job.pid, signal.SIGKILL)  # (the worker, in the child's group)
