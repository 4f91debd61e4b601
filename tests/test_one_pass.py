"""A game's messages in one pass (``Store.receive_many``, as ``pbem inbox`` feeds a game): the
submissions stored as received in one transaction, decided in one more, their receipts read in a
third; a game opened by the inbox finishes an earlier process's unfinished work on the way."""

from __future__ import annotations

import mailbox
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import pbem.store
from pbem.core.rng import Rng
from pbem.envelope import KeyPair
from pbem.games.caesar.rules.autoplay import random_orders
from pbem.games.caesar.rules.board import Side
from pbem.store import Home, StoreError, Verdict
from pbem.transport.inbox import read_inbox
from store_helpers import dump, make_game, query, signed
from test_mail import plain_mail


class Killed(BaseException):
    """The process dies here (as a test raises it: nothing after it runs)."""


def _orders(home: Path, keys: dict[Side, KeyPair], count: int) -> list[bytes]:
    """``count`` signed submissions that play game ``g`` of ``home`` on from its start (found on a
    scratch copy, which is then removed): several steps' worth, each legal where it comes."""
    scratch = home.parent / f"{home.name}-scratch"
    scratch.mkdir()
    shutil.copyfile(home / "g.db", scratch / "g.db")
    rng, raws = Rng(3), []
    with Home(scratch).open("g") as st:
        while len(raws) < count:
            session = st.adjudication().session
            step = session.step()
            side = next(s for s in step.awaiting if s not in session.sealed)
            raw = signed(keys, side, step.number, random_orders(session, side, rng), len(raws))
            assert st.receive(raw).verdict is Verdict.ACCEPTED
            raws.append(raw)
    shutil.rmtree(scratch)
    return raws


@pytest.fixture()
def twins(tmp_path: Path) -> tuple[Path, Path, list[bytes]]:
    """Two homes holding the same new game, and five submissions that play it on (several resolve)."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    keys = make_game(a)
    raws = _orders(a, keys, 5)
    shutil.copytree(a, b)
    return a, b, raws


def test_a_pass_killed_while_deciding_commits_no_decision_and_the_next_one_makes_them_all(
        twins: tuple[Path, Path, list[bytes]], monkeypatch: pytest.MonkeyPatch) -> None:
    ref, home, raws = twins
    with Home(ref).open("g") as st:
        told = st.receive_many([(raw, "", None) for raw in raws])
    assert [r.verdict for r in told] == [Verdict.ACCEPTED] * 5 and sum(r.resolved for r in told) >= 2
    decided = []

    def die_at_the_second_decision(name: str) -> None:
        if name == "before-commit":
            decided.append(name)
            if len(decided) == 2:
                raise Killed

    monkeypatch.setattr(pbem.store, "_checkpoint", die_at_the_second_decision)
    with Home(home).open("g") as st, pytest.raises(Killed):
        st.receive_many([(raw, "", None) for raw in raws])
    monkeypatch.undo()
    db = home / "g.db"
    # every submission is stored as received; the first decision was not committed without the others
    assert [v for (v,) in query(db, "SELECT verdict FROM submission ORDER BY id")] == ["received"] * 5
    assert query(db, "SELECT COUNT(*) FROM snapshot") == [(1,)]
    Home(home).open("g").close()  # any opening finishes the work, lowest id first
    assert dump(db) == dump(ref / "g.db")


def test_receipts_come_in_the_order_asked_and_say_what_each_one_did(
        twins: tuple[Path, Path, list[bytes]]) -> None:
    home, _, raws = twins
    with Home(home).open("g") as st:
        told = st.receive_many([(raw, "", None) for raw in raws] + [(raws[0], "", None), (b"hello", "", None)])
        sids = [r.submission for r in told]
        assert told[5].verdict is Verdict.DUPLICATE and told[5].related == sids[0]
        assert told[6].verdict is Verdict.REJECTED and told[6].reason.startswith("cannot read")
        backwards = st.receipts(sids[::-1])
        assert backwards == [st.receipt(sid) for sid in sids[::-1]]
        assert [r.submission for r in backwards] == sids[::-1]
        assert [(r.verdict, r.resolved, r.next_step) for r in backwards[::-1][:5]] == [
            (r.verdict, r.resolved, r.next_step) for r in told[:5]]
        waiting = [r for r in told[:5] if not r.resolved]
        assert all(r.waiting_for for r in waiting if r.step == max(x.step or 0 for x in told))
        with pytest.raises(StoreError, match="has no submission #999"):
            st.receipts([sids[0], 999])


def test_the_inbox_finishes_what_an_earlier_process_left_undecided(
        twins: tuple[Path, Path, list[bytes]], monkeypatch: pytest.MonkeyPatch) -> None:
    """The inbox opens a game without the separate recovery pass: its own pass decides the submission
    a killed process stored but never decided, first, then the mailbox's."""
    ref, home, raws = twins

    def die_after_storing(name: str) -> None:
        if name == "received":
            raise Killed

    monkeypatch.setattr(pbem.store, "_checkpoint", die_after_storing)
    with Home(home).open("g") as st, pytest.raises(Killed):
        st.receive(raws[0])
    monkeypatch.undo()
    assert query(home / "g.db", "SELECT verdict FROM submission") == [("received",)]
    box = mailbox.mbox(str(home.parent / "in.mbox"))
    for n, raw in enumerate(raws[1:]):
        box.add(plain_mail(raw.decode("utf-8"), f"{n}@example.org", "player@example.org", "[g] orders"))
    box.close()
    run = read_inbox(Home(home), mbox=home.parent / "in.mbox")
    assert [r.receipt.verdict for r in run.results if r.receipt] == [Verdict.ACCEPTED] * 4
    with Home(ref).open("g") as st:
        st.receive_many([(raw, "", None) for raw in raws])
    got, want = dump(home / "g.db"), dump(ref / "g.db")
    # (the raw submissions differ: the inbox stores each email as received, the reference the files)
    assert [row[:1] + row[2:] for row in got["submission"]] == [row[:1] + row[2:] for row in want["submission"]]
    assert got["snapshot"] == want["snapshot"] and got["event"] == want["event"]


def test_reports_follow_every_decision_of_the_pass(twins: tuple[Path, Path, list[bytes]]) -> None:
    """One pass, several resolutions: each resolved step has its reports, rendered from its own state."""
    home, _, raws = twins
    with Home(home).open("g") as st:
        told = st.receive_many([(raw, "", None) for raw in raws])
        steps = {r.next_step for r in told if r.resolved}
        have: dict[Any, int] = {}
        for row in st.outbox():
            have[row.step] = have.get(row.step, 0) + 1
    assert steps and all(have.get(s) == 6 for s in steps)  # three recipients, text and HTML


def test_a_full_disk_met_by_the_plain_sql_is_told_as_by_the_orm(
        twins: tuple[Path, Path, list[bytes]], monkeypatch: pytest.MonkeyPatch) -> None:
    """The hot paths run their SQL on the session's own sqlite3 connection: its errors are told as
    the storage layer tells every database error (a full disk: the file is intact, free some space)."""
    home, _, raws = twins
    real = pbem.store.own_connection

    class Full:
        def __init__(self, raw: sqlite3.Connection) -> None:
            self.raw = raw

        def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
            if sql.startswith("INSERT INTO submission"):
                raise sqlite3.OperationalError("database or disk is full")
            return self.raw.execute(sql, params)

    monkeypatch.setattr(pbem.store, "own_connection", lambda db: Full(real(db)))
    with Home(home).open("g") as st, pytest.raises(StoreError) as told:
        st.receive(raws[0])
    assert "The game file is intact" in str(told.value) and "Free some space" in str(told.value)
    assert "Nothing of this was stored" in str(told.value)
    assert query(home / "g.db", "SELECT COUNT(*) FROM submission") == [(0,)]


_LOADED = ("import sys\nfrom pbem.cli import main\n"
           "try:\n    main.main(args=sys.argv[1:], prog_name='pbem')\nexcept SystemExit:\n    pass\n"
           "print('loaded:', sorted(m for m in ('sqlmodel', 'sqlalchemy', 'pydantic', 'pbem.tables') if m in sys.modules))")


def _loaded_by(home: Path, *args: str) -> str:
    """What ``pbem --home HOME ARGS`` printed, ending in which of the ORM's modules it loaded."""
    import subprocess
    import sys

    from store_helpers import cli_env

    done = subprocess.run([sys.executable, "-c", _LOADED, "--home", str(home), *args], env=cli_env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done
    return done.stdout


def test_the_pipeline_loads_no_orm(tmp_path: Path) -> None:
    """A mailbox fed (submissions that resolve steps, a reply to each queued), a resolving ``pbem submit``
    and ``pbem tick`` run on the plain connection alone: no SQLAlchemy, SQLModel or pydantic is loaded."""
    from datetime import timedelta

    home = tmp_path / "home"
    home.mkdir()
    keys = make_game(home, deadline=timedelta(days=3))
    raws = _orders(home, keys, 4)
    box = mailbox.mbox(str(tmp_path / "in.mbox"))
    for i, raw in enumerate(raws[:3]):
        box.add(plain_mail(raw.decode(), f"m{i}@example.org", "caesar@example.org"))
    box.flush()
    fed = _loaded_by(home, "inbox", "--mbox", str(tmp_path / "in.mbox"))
    assert "this run: 3 accepted" in fed and fed.endswith("loaded: []\n"), fed
    (tmp_path / "last.json").write_bytes(raws[3])
    submitted = _loaded_by(home, "submit", str(tmp_path / "last.json"))
    assert "accepted" in submitted and submitted.endswith("loaded: []\n"), submitted
    ticked = _loaded_by(home, "tick", "--now", "2099-01-01T00:00:00Z")
    assert "resolved at its deadline" in ticked and ticked.endswith("loaded: []\n"), ticked
    with Home(home).open("g") as st:
        assert len([r for r in st.outbox(kind="reply")]) == 3  # (the ORM, here: a command that lists the outbox)
        assert st.verify().ok
