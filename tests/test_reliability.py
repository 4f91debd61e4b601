"""Exactly once and honest errors: a mailbox message fed again is recognised by the game file
(not by the seen-list), a full disk is told apart from a damaged file and says what was
committed, `pbem tick` reports a resolution it committed before a write failed."""

from __future__ import annotations

import contextlib
import mailbox
import shutil
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.envelope import parse_submission
from pbem.games.caesar.rules.board import Side
from pbem.store import Home, parse_duration, parse_time
from pbem.transport.inbox import SEEN_FILE
from store_helpers import cli_env, dump, make_game, run_pbem, signed
from test_mail import armored_mail, make_games, plain_mail, year_start_orders
from test_mail import signed as mail_signed

C, P = Side.CAESAR, Side.POMPEY


def _mbox(path: Path, messages: list[bytes]) -> Path:
    box = mailbox.mbox(str(path))
    for raw in messages:
        box.add(raw)
    box.close()
    return path


def _replies(home: Path, gid: str) -> list[int | None]:
    with Home(home).open(gid) as st:
        return sorted(r.submission_id for r in st.outbox(kind="reply"))


def test_a_message_fed_again_is_recognised_by_the_game_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = make_games(home, "g")
    c = mail_signed(keys["g"], "g", C, year_start_orders(home, "g", C))
    p = mail_signed(keys["g"], "g", P, year_start_orders(home, "g", P))
    first = armored_mail(c.to_armor(), "1@example.org", "ann@example.org")
    box = _mbox(tmp_path / "a.mbox", [first, armored_mail(p.to_armor(), "2@example.net", "bob@example.net")])
    r = CliRunner().invoke(main, ["--home", str(home), "inbox", "--mbox", str(box)])
    assert r.exit_code == 0, r.output
    before = dump(home / "g.db")
    assert [s[5] for s in before["submission"]] == ["accepted", "accepted"]
    assert _replies(home, "g") == [1, 2]

    (home / SEEN_FILE).unlink()  # the pre-filter is lost (or the process died before writing it)
    r = CliRunner().invoke(main, ["--home", str(home), "inbox", "--mbox", str(box)])
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0] == "g: received before as submission #1 (accepted); nothing stored or answered again"
    assert r.stdout.splitlines()[-1] == f"mbox:{box}: 2 messages, 2 processed before; this run: nothing new"
    assert dump(home / "g.db") == before and _replies(home, "g") == [1, 2]

    # The mail server delivers the first message again with another Received header: the same
    # Message-ID carrying the same signed orders is the same message.
    again = b"Received: from relay2.example.org; Sat, 01 Mar 2025 18:32:00 +0000\n" + first
    # A stranger reuses that Message-ID for other orders: that is a new message, decided as usual.
    stranger = plain_mail(mail_signed(keys["g"], "g", C, "pass\n").to_armor(), "1@example.org", "eve@example.org")
    box2 = _mbox(tmp_path / "b.mbox", [again, again, stranger])
    r = CliRunner().invoke(main, ["--home", str(home), "inbox", "--mbox", str(box2), "--json"])
    assert r.exit_code == 0, r.output
    import json

    data = json.loads(r.stdout)
    assert [(x["receipt"]["submission"], x["receipt"]["again"]) for x in data["results"]] == [
        (1, True), (1, True), (3, False)]
    assert data["counts"]["already processed"] == 2
    with Home(home).open("g") as st:
        assert [s.verdict for s in st.submissions()] == ["accepted", "accepted", "rejected"]
        assert st.verify().ok
    assert _replies(home, "g") == [1, 2, 3]
    con = sqlite3.connect(home / "g.db")
    assert con.execute("SELECT COUNT(*), COUNT(DISTINCT digest) FROM message").fetchone() == (4, 4)
    con.close()


def test_an_old_game_file_gets_the_message_table_on_its_first_write(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = make_games(home, "g")
    con = sqlite3.connect(home / "g.db")
    con.execute("DROP TABLE message")  # as written before the table existed
    con.commit()
    con.close()
    c = mail_signed(keys["g"], "g", C, year_start_orders(home, "g", C))
    box = _mbox(tmp_path / "a.mbox", [armored_mail(c.to_armor(), "1@example.org", "ann@example.org")])
    for _ in range(2):
        (home / SEEN_FILE).unlink(missing_ok=True)
        r = CliRunner().invoke(main, ["--home", str(home), "inbox", "--mbox", str(box)])
        assert r.exit_code == 0, r.output
    with Home(home).open("g") as st:
        assert len(st.submissions()) == 1


# ---- full disks --------------------------------------------------------------------------------

LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write over the limit fails with EFBIG instead of killing
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
from pbem.cli import main
main.main(args=sys.argv[2:], prog_name="pbem")
"""


def limited(limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI with every file it writes limited to ``limit`` bytes (like a full disk)."""
    return subprocess.run([sys.executable, "-c", LIMITED, str(limit), *args], env=cli_env(), capture_output=True,
                          text=True, timeout=120)


def cards(st: Home, side: Side) -> str:
    with st.open("g") as s:
        hand = sorted(c for c in s.adjudication().session.game.state.hands[side] if "/" in c)
    return f"discard {hand[0]}\nplay {hand[1]}\n"


def _honest(err: str) -> None:
    assert "restore it from a backup" not in err and "not a readable pbem game file" not in err, err
    assert "The game file is intact" in err and "Free some space" in err, err


def test_a_full_disk_during_a_resolving_submit_is_not_called_damage(tmp_path: Path) -> None:
    ref, home = tmp_path / "ref", tmp_path / "home"
    keys = make_game(ref)
    h = Home(ref)
    h.receive(signed(keys, C, 1, cards(h, C)))
    shutil.copytree(ref, home)
    ref_before = tmp_path / "before"
    shutil.copytree(ref, ref_before)
    pompey = tmp_path / "p.json"
    pompey.write_bytes(signed(keys, P, 1, cards(h, P)))
    h.receive(pompey.read_bytes())  # the uninterrupted run
    size = (home / "g.db").stat().st_size
    # a limit at which the raw submission and the decision fit in the log but the rendered
    # reports do not (the sizes move with the file format: found, not assumed); each try on a fresh copy
    for tenths in range(3, 12):
        trial = tmp_path / f"try{tenths}"
        shutil.copytree(ref_before, trial)
        r = limited(size * tenths // 10, "--home", str(trial), "submit", str(pompey))
        if "stored and accepted" in r.stderr:
            break
        _honest(r.stderr)  # any other failure point is told honestly too
    shutil.rmtree(home)
    shutil.copytree(trial, home)
    assert r.returncode == 1, r
    _honest(r.stderr)
    # (the two of the side step 2 asks something of: the other side's and the moderator's go to no one,
    # so they are kept on demand, not written: see test_on_demand.py)
    assert "Nothing was lost: submission #2 is stored and accepted (it resolved the step; step 2 is open); " \
           "2 reports are not written yet" in r.stderr, r.stderr
    status = run_pbem("--home", str(home), "status")
    assert status.returncode == 0 and status.stdout.startswith("g: step 2,"), status
    assert dump(home / "g.db") == dump(ref / "g.db")  # the rerun rendered the missing reports, nothing else

    # With no room even for the raw submission (a long email), nothing is stored and it says so.
    tiny = tmp_path / "tiny"
    shutil.copytree(ref, tiny)
    late = tmp_path / "late.eml"
    armor = parse_submission(signed(keys, C, 2, "pass")).to_armor()
    late.write_bytes(plain_mail("Salve,\n" + "quoted history\n" * 8000 + armor, "9@x", "ann@example.org"))
    before = dump(tiny / "g.db")
    r = limited(40_000, "--home", str(tiny), "submit", str(late))  # room for the lock index, not for the message
    assert r.returncode == 1
    _honest(r.stderr)
    assert "Nothing of this was stored: submit it again once there is space." in r.stderr, r.stderr
    assert dump(tiny / "g.db") == before


def test_tick_reports_the_step_it_resolved_before_a_write_failed(tmp_path: Path) -> None:
    start = parse_time("2025-03-01T12:00:00Z")
    home, ref = tmp_path / "home", tmp_path / "ref"
    make_game(home, deadline=parse_duration("72h"), clock=lambda: start)
    shutil.copytree(home, ref)
    when = (start + timedelta(hours=73)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert CliRunner().invoke(main, ["--home", str(ref), "tick", "--now", when]).exit_code == 0
    size = (home / "g.db").stat().st_size
    for tenths in range(3, 12):  # a limit at which the resolution fits and its reports do not
        trial = tmp_path / f"try{tenths}"
        shutil.copytree(home, trial)
        r = limited(size * tenths // 10, "--home", str(trial), "tick", "--now", when)
        if "resolved at its deadline" in r.stdout:
            break
        _honest(r.stderr)
    shutil.rmtree(home)
    shutil.copytree(trial, home)
    assert r.returncode == 1, r
    assert r.stdout == "g: step 1 resolved at its deadline (2025-03-04T12:00:00Z); defaults for Caesar, Pompey\n", r
    _honest(r.stderr)
    assert "skipped" not in r.stderr and "2 reports are not written yet" in r.stderr, r.stderr
    again = CliRunner().invoke(main, ["--home", str(home), "tick", "--now", when])
    assert again.exit_code == 0 and again.stdout == "g: nothing to do\n"
    assert dump(home / "g.db") == dump(ref / "g.db")


def test_tick_takes_a_lock(tmp_path: Path) -> None:
    import fcntl

    make_game(tmp_path)
    with open(tmp_path / ".pbem-tick.lock", "a+b") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # another `pbem tick` is running
        r = CliRunner().invoke(main, ["--home", str(tmp_path), "tick"])
    assert r.exit_code == 1 and "another `pbem tick` is running" in r.output
    assert CliRunner().invoke(main, ["--home", str(tmp_path), "tick"]).exit_code == 0


def test_a_damaged_file_is_still_called_damaged(tmp_path: Path) -> None:
    make_game(tmp_path)
    data = bytearray((tmp_path / "g.db").read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # the first page's schema area
    (tmp_path / "g.db").write_bytes(bytes(data))
    r = CliRunner().invoke(main, ["--home", str(tmp_path), "status", "--game", "g"])
    assert r.exit_code == 1 and "restore it from a backup" in r.output and "intact" not in r.output


def test_inbox_with_worker_processes_gives_the_same_games(tmp_path: Path) -> None:
    from crashkit import home_state
    from test_mail import realistic_mailbox

    one, two = tmp_path / "one", tmp_path / "two"
    _, messages = realistic_mailbox(one)
    shutil.copytree(one, two)
    box = _mbox(tmp_path / "a.mbox", [raw for _, raw in messages])
    outputs = []
    for home, jobs in ((one, "1"), (two, "2")):
        r = CliRunner().invoke(main, ["--home", str(home), "inbox", "--mbox", str(box), "--jobs", jobs])
        assert r.exit_code == 0, r.output
        outputs.append(r.stdout.replace(str(home), "HOME"))
    assert outputs[0] == outputs[1] and "3 accepted, 1 rejected, 1 duplicate, 2 not delivered" in outputs[1]
    assert home_state(one) == home_state(two)


_HOLD_AND_FORK = """
import multiprocessing, os, sys, time
from pathlib import Path
from pbem.club import run_lock
from pbem.store import Home
from pbem.transport.common import exclusive

def worker() -> None:
    print(os.getpid(), flush=True)  # (said by the worker: it is running, past what a fork runs in the child)
    time.sleep(60)

lock = exclusive(Path(sys.argv[1]) / ".pbem-inbox.lock", "inbox") if sys.argv[2] == "inbox" else run_lock(Home(Path(sys.argv[1])))
with lock:
    child = multiprocessing.get_context("fork").Process(target=worker)
    child.start()
    time.sleep(60)
"""


@pytest.mark.parametrize("which", ["inbox", "run"])
def test_a_killed_run_s_workers_do_not_keep_the_next_run_out(tmp_path: Path, which: str) -> None:
    """`--jobs` forks workers; when the parent is killed, a worker still finishing its game must not hold
    the lock (a flock belongs to the open file, which the fork shares): the next run starts at once."""
    import os
    import signal

    from pbem.club import RunBusy, run_lock
    from pbem.transport.common import MailError, exclusive

    def take() -> None:
        if which == "inbox":
            with exclusive(tmp_path / ".pbem-inbox.lock", "inbox"):
                pass
        else:
            with run_lock(Home(tmp_path)):
                pass

    parent = subprocess.Popen([sys.executable, "-c", _HOLD_AND_FORK, str(tmp_path), which], env=cli_env(),
                              stdout=subprocess.PIPE, text=True)
    child = 0
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        with pytest.raises((MailError, RunBusy)):  # held while the parent runs
            take()
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=30)
        os.kill(child, 0)  # the worker is still running ...
        take()  # ... and the lock is free
    finally:
        parent.kill()
        parent.wait(timeout=30)
        if child:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)


def test_inbox_and_run_use_one_worker_per_core_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pbem.cli.club
    import pbem.cli.mail

    seen: list[int] = []

    def read(self: object, home: Home, on_result: object, *, jobs: int = 1, progress: object = None) -> object:
        seen.append(jobs)
        raise SystemExit(0)

    monkeypatch.setattr(pbem.cli.mail, "cores", lambda: 3)
    monkeypatch.setattr(pbem.cli.club, "cores", lambda: 3)
    monkeypatch.setattr(pbem.cli.mail.MailboxChoice, "read", read)
    box = _mbox(tmp_path / "a.mbox", [])
    make_game(tmp_path)
    CliRunner().invoke(main, ["--home", str(tmp_path), "inbox", "--mbox", str(box)])
    CliRunner().invoke(main, ["--home", str(tmp_path), "inbox", "--mbox", str(box), "--jobs", "2"])
    CliRunner().invoke(main, ["--home", str(tmp_path), "run", "--mbox", str(box), "--from", "c@example.org"])
    assert seen == [3, 2, 3]


def test_inbox_workers_are_forked_from_a_frozen_heap_given_back_after(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The games fed by forked workers (`--jobs`): the parent's objects are out of the collector's
    reach while they run (a worker's collections copy no page it shares), and collected again after."""
    import gc

    import pbem.workers
    from pbem.transport.inbox import read_inbox

    home = tmp_path / "home"
    keys = make_games(home, "g", "h")
    mails = [armored_mail(mail_signed(keys[gid], gid, C, year_start_orders(home, gid, C)).to_armor(),
                          f"{gid}@example.org", "x@example.org") for gid in ("g", "h")]
    frozen: list[int] = []
    ready = pbem.workers.fork_ready
    monkeypatch.setattr(pbem.workers, "fork_ready", lambda: (ready(), frozen.append(gc.get_freeze_count()))[0])
    run = read_inbox(Home(home), mbox=_mbox(tmp_path / "a.mbox", mails), jobs=2)
    assert [r.outcome for r in run.results] == ["delivered", "delivered"]
    assert frozen and frozen[0] > 0 and gc.get_freeze_count() == 0
