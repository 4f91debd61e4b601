"""The sealed path of ``pbem submit`` (pbem.sealed): it writes what the store would, takes only the
plain case (anything else: nothing written, the store goes the whole way), loads no ORM, and a
kill before its commit loses nothing that was acknowledged."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pbem.envelope import new_envelope, password_submission
from pbem.games.caesar.rules.board import Side
from pbem.records import Receipt, Verdict
from pbem.sealed import receive_sealed
from pbem.store import Home
from store_helpers import cli_env, dump, make_game, signed, start_cli

C, P = Side.CAESAR, Side.POMPEY
NOW = datetime(2025, 3, 2, 12, 0, tzinfo=UTC)


def _hand(home: Path, side: Side, k: int = 0) -> str:
    with Home(home).open("g") as st:
        hand = sorted(c for c in st.adjudication().session.game.state.hands[side] if "/" in c)
    return f"discard {hand[0]}\nplay {hand[1 + k % (len(hand) - 1)]}\n"


def _copy(src: Path, dst: Path) -> Path:
    dst.mkdir()
    for f in src.glob("g.*"):
        shutil.copyfile(f, dst / f.name)
    return dst


def _everything(db: Path) -> dict[str, Any]:
    """The file's content that does not depend on the clock, with the players' languages and mail choices."""
    out: dict[str, Any] = dump(db)
    con = sqlite3.connect(db)
    try:
        out["player"] = con.execute("SELECT side, language FROM player ORDER BY side").fetchall()
        has_pref = con.execute("SELECT 1 FROM sqlite_master WHERE name = 'mail_pref'").fetchone()
        out["mail_pref"] = con.execute("SELECT side, fold FROM mail_pref ORDER BY side").fetchall() if has_pref else []
    finally:
        con.close()
    return out


class Twins:
    """One game followed the whole way (the store); each submission is also tried on a copy by the sealed
    path and by the store on another copy, and the two copies are compared."""

    def __init__(self, tmp: Path) -> None:
        self.tmp, self.base = tmp, tmp / "base"
        self.keys = make_game(self.base)
        self.n = 0

    def feed(self, raw: bytes, *, game: str | None = None) -> tuple[Receipt | None, Receipt]:
        self.n += 1
        quick_home = _copy(self.base, self.tmp / f"quick{self.n}")
        whole_home = _copy(self.base, self.tmp / f"whole{self.n}")
        before = _everything(quick_home / "g.db")
        quick = receive_sealed(quick_home, raw, "orders.json", game, NOW)
        whole = Home(whole_home, clock=lambda: NOW).receive(raw, "orders.json", game)
        if quick is None:  # declined: nothing written
            assert _everything(quick_home / "g.db") == before
        else:
            assert quick.to_json() == whole.to_json()
            assert _everything(quick_home / "g.db") == _everything(whole_home / "g.db")
            with Home(quick_home).open("g") as st:
                assert st.verify().ok  # the audit replays the sealed path's row like any other
        Home(self.base, clock=lambda: NOW).receive(raw, "orders.json", game).verdict  # noqa: B018 - the game goes on
        return quick, whole


def test_the_sealed_path_writes_what_the_store_writes_and_declines_the_rest(tmp_path: Path) -> None:
    t = Twins(tmp_path)
    keys = t.keys
    first, _ = t.feed(signed(keys, C, 1, _hand(t.base, C, 0)))
    assert first is not None and first.verdict is Verdict.ACCEPTED and first.waiting_for == ("Pompey",)
    revision_raw = signed(keys, C, 1, _hand(t.base, C, 1) + "language es\nmailing fold\n", n=1)
    revision, _ = t.feed(revision_raw)
    assert revision is not None and revision.related == first.submission  # it replaces the first
    again, _ = t.feed(revision_raw)
    assert again is not None and (again.verdict, again.related) == (Verdict.DUPLICATE, revision.submission)
    wrong, _ = t.feed(signed(keys, C, 1, "play NOPE\n", n=2))
    assert wrong is not None and wrong.verdict is Verdict.REJECTED and wrong.errors
    assert wrong.stands == revision.submission  # his revision still counts
    early, _ = t.feed(signed(keys, P, 2, "pass\n"))
    assert early is not None and early.verdict is Verdict.REJECTED and not early.errors
    forged_env = new_envelope("g", P.value, 1, _hand(t.base, P), nonce="f" * 32, time="2025-03-01T12:00:00Z")
    from pbem.envelope import sign_envelope

    forged, _ = t.feed(sign_envelope(forged_env, keys[C].private_pem).to_json().encode())  # Caesar's key
    assert forged is not None and forged.verdict is Verdict.REJECTED
    offer, whole_offer = t.feed(signed(keys, P, 1, "offer draw\n"))
    assert offer is None and whole_offer.verdict is Verdict.ACCEPTED  # a control line: the store's
    resolving, whole = t.feed(signed(keys, P, 1, _hand(t.base, P), n=3))
    assert resolving is None and whole.resolved  # the step resolves: the store's
    assert receive_sealed(t.base, b"not a submission", "x.txt", "g", NOW) is None
    assert receive_sealed(t.base, signed(keys, C, 1, "pass"), "imap:INBOX", None, NOW) is None  # a reply is due


def test_the_sealed_path_leaves_to_the_store_what_needs_it(tmp_path: Path) -> None:
    keys = make_game(tmp_path / "base")
    raw = signed(keys, C, 1, _hand(tmp_path / "base", C))
    pending = _copy(tmp_path / "base", tmp_path / "pending")
    con = sqlite3.connect(pending / "g.db")
    con.execute("INSERT INTO submission (raw, received, source, verdict) VALUES (?, '2025-03-02T11:00:00Z', '', ?)",
                (signed(keys, P, 1, "pass"), Verdict.RECEIVED.value))  # left by a killed process
    con.commit()
    con.close()
    computer = _copy(tmp_path / "base", tmp_path / "computer")
    (computer / "g.computer.json").write_text("{}")
    other_format = _copy(tmp_path / "base", tmp_path / "old")
    con = sqlite3.connect(other_format / "g.db")
    con.execute("UPDATE game SET schema_version = 'pbem-store 2'")
    con.commit()
    con.close()
    for home in (pending, computer, other_format):
        before = _everything(home / "g.db")
        assert receive_sealed(home, raw, "orders.json", None, NOW) is None, home.name
        assert _everything(home / "g.db") == before
    env = new_envelope("g", C.value, 1, _hand(tmp_path / "base", C), nonce="a" * 32, time="2025-03-01T12:00:00Z")
    with_password = password_submission(env, "secret").to_json().encode()
    assert receive_sealed(tmp_path / "base", with_password, "orders.json", None, NOW) is None
    assert receive_sealed(tmp_path / "base", raw, "orders.json", "nope", NOW) is None  # no such game
    assert receive_sealed(tmp_path / "base", raw, "orders.json", "../g", NOW) is None
    assert receive_sealed(tmp_path / "base", raw, "orders.json", None, NOW) is not None


def test_a_sealed_submit_loads_no_orm(tmp_path: Path) -> None:
    """A signed JSON file goes in without the ORM, without the email package (it is no email) and
    without cryptography's key-file formats (checking a signature needs none of them)."""
    keys = make_game(tmp_path)
    orders = tmp_path / "orders.json"
    orders.write_bytes(signed(keys, C, 1, _hand(tmp_path, C)))
    script = ("import sys\nfrom pbem.cli import main\n"
              "try:\n    main.main(args=sys.argv[1:], prog_name='pbem')\nexcept SystemExit:\n    pass\n"
              "print('loaded:', sorted(m for m in ('pbem.store', 'sqlmodel', 'sqlalchemy', 'email', 'pbem.transport.mime',"
              " 'cryptography.hazmat.primitives.serialization') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", script, "--home", str(tmp_path), "submit", str(orders)],
                          env=cli_env(), capture_output=True, text=True, timeout=120)
    assert "accepted: submission #1" in done.stdout and "sealed until step 1 resolves" in done.stdout, done
    assert "loaded: []" in done.stdout, done.stdout


def test_a_kill_before_the_sealed_commit_stores_nothing_and_the_resend_is_taken(tmp_path: Path) -> None:
    keys = make_game(tmp_path)
    orders = tmp_path / "orders.json"
    orders.write_bytes(signed(keys, C, 1, _hand(tmp_path, C)))
    before = _everything(tmp_path / "g.db")
    killed = start_cli(["--home", str(tmp_path), "submit", str(orders)], crash_at="sealed-before-commit")
    out, err = killed.communicate(timeout=120)
    assert killed.returncode == 77, (out, err)  # no receipt was given
    assert _everything(tmp_path / "g.db") == before
    again = start_cli(["--home", str(tmp_path), "submit", str(orders)])
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0 and b"accepted: submission #1" in out, (out, err)
    with Home(tmp_path).open("g") as st:
        assert [s.verdict for s in st.submissions()] == ["accepted"]
