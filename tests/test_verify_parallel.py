"""``pbem verify`` renders the reports again in worker processes when it may: the same reports are
rendered and compared, the same problems found, in the same order, as in one process."""

from __future__ import annotations

import gc
import os
import shutil
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem import audit
from pbem.bodies import pack, unpack
from pbem.cli import DEMO_GAME, main
from pbem.store import Home
from store_helpers import query

pytestmark = pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(),
                                reason="worker processes are forked")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("demo") / "home"
    r = CliRunner().invoke(main, ["demo", "--home", str(home)])
    assert r.exit_code == 0, (r.output, r.exception)
    return home


def _copy(demo: Path, tmp_path: Path) -> tuple[Home, Path]:
    home = tmp_path / "home"
    home.mkdir()
    db = home / f"{DEMO_GAME}.db"
    shutil.copyfile(demo / f"{DEMO_GAME}.db", db)
    return Home(home), db


def _alter(db: Path, step: int, fmt: str) -> str:
    """Change one letter of the ``fmt`` report of ``step``; returns its recipient."""
    con = sqlite3.connect(db)
    oid, recipient, stored = con.execute("SELECT id, recipient, body FROM outbox WHERE kind = 'report' AND step = ? "
                                         "AND format = ? AND body IS NOT NULL ORDER BY id", (step, fmt)).fetchone()
    body = unpack(stored)
    at = body.index("Caesar") + 1
    con.execute("UPDATE outbox SET body = ? WHERE id = ?", (pack(body[:at] + "A" + body[at + 1:]), oid))
    con.commit()
    con.close()
    return str(recipient)


def _stored(db: Path) -> int:
    """How many reports are stored with their text (not kept on demand): those verify compares."""
    return int(query(db, "SELECT COUNT(*) FROM outbox WHERE kind = 'report' AND body IS NOT NULL")[0][0])


def _verify(home: Home, jobs: int, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, int]:
    """The report of ``Store.verify(jobs)``, and how many steps' reports this process rendered itself."""
    checked = []
    check = audit._ReportJob.check

    def counting(self: audit._ReportJob, group: Any) -> Any:
        checked.append(group[0][1].step)  # a forked worker counts in its own copy of the list
        return check(self, group)

    monkeypatch.setattr(audit._ReportJob, "check", counting)
    monkeypatch.setattr(audit, "PARALLEL_MIN_REPORTS", 0)
    with home.open(DEMO_GAME) as store:
        return store.verify(jobs), len(checked)


def _renderers(monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """The process id of each renderer ``_ReportJob.start`` forks, in order (None: it rendered here)."""
    started: list[int | None] = []
    start = audit._ReportJob.start

    def starting(self: audit._ReportJob, jobs: int | None) -> Any:
        running = start(self, jobs)
        started.append(running.pid if running is not None else None)
        return running

    monkeypatch.setattr(audit._ReportJob, "start", starting)
    return started


def test_workers_find_what_one_process_finds(demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, db = _copy(demo, tmp_path)
    whom = [_alter(db, 3, "html"), _alter(db, 8, "text")]
    alone, steps = _verify(home, 1, monkeypatch)
    assert steps > 3
    spread, here = _verify(home, 2, monkeypatch)
    assert here == 0  # the first step in the renderer process, every other step in one of its workers
    assert not alone.ok and spread.problems == alone.problems
    assert [p.split(" differs")[0] for p in spread.problems] == [
        f"step 3: the html report for {whom[0]}", f"step 8: the text report for {whom[1]}"]
    assert spread.reports == alone.reports == _stored(db) > 40


def test_a_clean_game_passes_with_workers(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    frozen = []
    start = audit._ReportJob.start
    monkeypatch.setattr(audit._ReportJob, "start",
                        lambda self, jobs: (start(self, jobs), frozen.append(gc.get_freeze_count()))[0])
    report, here = _verify(Home(demo), 2, monkeypatch)
    assert report.ok and report.reports == _stored(demo / f"{DEMO_GAME}.db") > 40 and here == 0
    # the heap was frozen while the renderer ran (its collections copy no shared page), and is not now
    assert frozen[0] > 0 and gc.get_freeze_count() == 0


def test_without_fork_every_report_is_rendered_here(demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the system has no ``os.fork`` (Windows), verify forks no renderer and finds the same."""
    home, db = _copy(demo, tmp_path)
    _alter(db, 5, "text")
    spread, _ = _verify(home, 2, monkeypatch)
    started = _renderers(monkeypatch)
    monkeypatch.delattr(audit.os, "fork")
    alone, here = _verify(home, 2, monkeypatch)
    assert started and not any(started) and here > 3
    assert not alone.ok and alone.problems == spread.problems and alone.reports == spread.reports


def test_an_error_in_a_worker_is_reported_as_in_one_process(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A report that cannot be rendered fails the worker; the parent renders that step itself and
    meets the same error, which verify names as it always has."""
    real = audit._report_problem

    def broken(system: Any, row: Any, *args: Any) -> Any:
        if row.step == 7:
            raise KeyError("damaged")
        return real(system, row, *args)

    monkeypatch.setattr(audit, "_report_problem", broken)
    alone, _ = _verify(Home(demo), 1, monkeypatch)
    spread, _ = _verify(Home(demo), 2, monkeypatch)
    assert spread.problems == alone.problems
    assert spread.problems[0].startswith("the game file is damaged: the replay stopped at KeyError")


def test_each_worker_renders_neighbouring_steps(demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers share the steps in contiguous runs (pbem.workers.Runs): what a worker renders is a run
    of its own slice, forward, then what it took from the far end of the other's, backward (for the second
    worker, that end lies just before its own run); together every step once. (Handed out in turn, the steps a worker renders are far apart, and its caches serve less.)"""
    seen = tmp_path / "seen"
    check = audit._ReportJob.check

    def noting(self: audit._ReportJob, group: Any) -> Any:
        with seen.open("a") as f:  # one short line a write: the processes' lines do not mix
            f.write(f"{os.getpid()} {group[0][1].step}\n")
        return check(self, group)

    monkeypatch.setattr(audit._ReportJob, "check", noting)
    monkeypatch.setattr(audit, "PARALLEL_MIN_REPORTS", 0)
    with Home(demo).open(DEMO_GAME) as store:
        assert store.verify(2).ok
    by_pid: dict[str, list[int]] = {}
    for line in seen.read_text().splitlines():
        pid, step = line.split()
        by_pid.setdefault(pid, []).append(int(step))
    renderer = [pid for pid, steps in by_pid.items() if steps == [min(s for ss in by_pid.values() for s in ss)]]
    assert len(renderer) == 1 and len(by_pid) == 3  # the renderer (the first step), and two workers
    everything = sorted(s for ss in by_pid.values() for s in ss)
    assert everything == sorted(set(everything))  # each step once
    for pid, steps in by_pid.items():
        if pid == renderer[0]:
            continue
        up = 1
        while up < len(steps) and steps[up] == steps[up - 1] + 1:
            up += 1
        stolen = steps[up:]
        assert all(b == a - 1 for a, b in zip(stolen, stolen[1:], strict=False)), steps
        # taken from the far end of another worker's run: after its own run, or (the second worker, when
        # the first started late) just before it; never inside it
        assert not stolen or not steps[0] <= stolen[0] <= steps[up - 1], steps


def test_a_worker_that_dies_leaves_its_steps_to_this_process(
        demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, db = _copy(demo, tmp_path)
    whom = _alter(db, 5, "html")
    alone, _ = _verify(home, 1, monkeypatch)
    last = max(s for (s,) in query(db, "SELECT step FROM outbox WHERE kind = 'report' AND body IS NOT NULL"))
    checked = audit._checked

    def dying(job: Any, k: int) -> Any:
        if job.grouped[k][0][1].step == last:  # in the second worker (the last step is in its slice)
            os._exit(3)
        return checked(job, k)

    monkeypatch.setattr(audit, "_checked", dying)
    spread, here = _verify(home, 2, monkeypatch)
    assert spread.problems == alone.problems and spread.reports == alone.reports
    assert spread.problems[0].startswith(f"step 5: the html report for {whom}")
    assert here >= 1  # what the dead worker took is rendered here (its last step among it, not in a worker)


def test_workers_render_while_the_replay_runs_and_only_its_steps_count(
        demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers start from the stored states and events before the replay; a replay that stops
    early (a submission's stored orders altered) leaves the later steps' reports out, as in one process."""
    home, db = _copy(demo, tmp_path)
    _alter(db, 12, "text")  # after the step where the replay stops: not counted either way
    _alter(db, 2, "html")
    con = sqlite3.connect(db)
    sid, step = con.execute("SELECT id, applied_step FROM submission WHERE verdict = 'accepted' AND applied_step = 6 "
                            "ORDER BY id").fetchone()
    con.execute("UPDATE submission SET orders = orders || ' ' WHERE id = ?", (sid,))
    con.commit()
    con.close()
    at_replay: list[int] = []
    started, replay = _renderers(monkeypatch), audit._Verifier.replay

    def noting(self: audit._Verifier, *args: Any) -> Any:
        at_replay.append(len(self.problems))
        at_replay.append(started[-1] is not None)  # the renderer is out before the replay begins
        return replay(self, *args)

    monkeypatch.setattr(audit._Verifier, "replay", noting)
    alone, _ = _verify(home, 1, monkeypatch)
    spread, _ = _verify(home, 2, monkeypatch)
    assert at_replay == [0, False, 0, True]
    assert spread.problems == alone.problems
    assert any(f"step {step}:" in p and "orders" in p for p in alone.problems), alone.problems
    assert any(p.startswith("step 2: the html report") for p in alone.problems), alone.problems
    assert not any(p.startswith("step 12:") for p in alone.problems), alone.problems


def _assert_gone(pgid: int) -> None:
    """Process group ``pgid`` (a renderer and its workers) has no process left running (waited for up
    to five seconds: a killed worker may take a moment), and this process's heap is not frozen."""
    for _ in range(100):
        if not _group_alive(pgid):
            break
        time.sleep(0.05)
    assert _group_alive(pgid) == [] and gc.get_freeze_count() == 0


def _group_alive(pgid: int) -> list[int]:
    """The processes of process group ``pgid`` still running (not exited)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(stat.parent.name))
    return alive


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
def test_a_replay_that_fails_stops_the_renderer_and_its_workers(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pids = _renderers(monkeypatch)

    def failing(self: audit._Verifier, *args: Any) -> Any:
        time.sleep(0.3)  # the renderer has forked its workers by now
        raise RuntimeError("the replay failed")

    monkeypatch.setattr(audit._Verifier, "replay", failing)
    with pytest.raises(RuntimeError, match="the replay failed"):
        _verify(Home(demo), 2, monkeypatch)
    assert pids[0] is not None
    with pytest.raises(ChildProcessError):
        os.waitpid(pids[0], os.WNOHANG)  # reaped
    _assert_gone(pids[0])


def test_a_renderer_that_dies_leaves_the_reports_to_this_process(
        demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, db = _copy(demo, tmp_path)
    whom = _alter(db, 5, "html")
    monkeypatch.setattr(audit, "_render", lambda job, jobs: os._exit(3))
    alone, _ = _verify(home, 1, monkeypatch)
    spread, here = _verify(home, 2, monkeypatch)
    assert spread.problems == alone.problems and spread.reports == alone.reports
    assert spread.problems[0].startswith(f"step 5: the html report for {whom}")
    steps = {s for (s,) in query(db, "SELECT step FROM outbox WHERE kind = 'report' AND body IS NOT NULL")}
    assert here == len(steps)  # every step rendered here after all


class _Interrupted(BaseException):
    """What Ctrl-C raises, as a test can raise it (pytest stops at a real KeyboardInterrupt)."""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
def test_interrupted_while_waiting_for_the_renderer_it_stops_it(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pids, fdopen, here = _renderers(monkeypatch), os.fdopen, os.getpid()

    class Pipe:
        def __init__(self, fd: int, mode: str) -> None:
            self.f = fdopen(fd, mode)

        def __enter__(self) -> Any:
            return self

        def __exit__(self, *exc: object) -> None:
            self.f.close()

        def read(self, *size: int) -> bytes:
            if os.getpid() != here:  # the renderer (which inherits this patch) reads its workers' answers
                return self.f.read(*size)
            raise _Interrupted  # at once: the renderer has more than a moment's work left

        def write(self, data: bytes) -> int:  # a worker's answer
            return self.f.write(data)

    ended: dict[int, int] = {}
    waitpid = os.waitpid

    def noting_how_it_ended(pid: int, options: int) -> tuple[int, int]:
        got = waitpid(pid, options)
        ended[got[0]] = got[1]
        return got

    monkeypatch.setattr(os, "fdopen", Pipe)  # (the renderer's answer is read by pbem.workers.Forked)
    monkeypatch.setattr(os, "waitpid", noting_how_it_ended)
    with pytest.raises(_Interrupted):
        _verify(Home(demo), 2, monkeypatch)
    monkeypatch.undo()
    pid = pids[0]
    assert pid is not None
    assert os.WIFSIGNALED(ended[pid]) and os.WTERMSIG(ended[pid]) == signal.SIGKILL  # stopped, not awaited
    _assert_gone(pid)
