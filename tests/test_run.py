"""`pbem run`: fetch, ingest, deadlines, tournaments, send, in that order, under a lock; a summary
line per run; exit 1 only when something needs the moderator."""

from __future__ import annotations

import email
import mailbox
from email import policy
from pathlib import Path

import pytest

import toygame
from homecli import cli, ok
from pbem.club import run_lock
from pbem.envelope import generate_keypair, new_envelope, sign_envelope
from pbem.games import register
from pbem.store import Home

register(toygame.SYSTEM)
PLAYERS = ("Ann", "Bob", "Cid", "Dan")


@pytest.fixture()
def club(tmp_path: Path) -> dict[str, object]:
    home = tmp_path / "home"
    keys = {p: generate_keypair() for p in PLAYERS}
    ok(home, "tournament", "new", "cup", "--rounds", "2", "--deadline", "24h", "--system", "toy", "-o", "rounds=1")
    for p in PLAYERS:
        (tmp_path / f"{p}.pub").write_text(keys[p].public_text)
        ok(home, "tournament", "add", "cup", "--player", p, "--email", f"{p.lower()}@example.org",
           "--key", str(tmp_path / f"{p}.pub"))
    ok(home, "tournament", "pair", "cup")
    mailbox.Maildir(tmp_path / "mail")
    return {"home": home, "keys": keys, "mail": tmp_path / "mail"}


def bid(c: dict[str, object], game: str, player: str, amount: int) -> None:
    home, keys, mail = c["home"], c["keys"], c["mail"]
    assert isinstance(home, Path) and isinstance(keys, dict) and isinstance(mail, Path)
    with Home(home).open(game) as st:
        side = next(p.side for p in st.players() if p.email.startswith(player.lower()))
    armor = sign_envelope(new_envelope(game, side, 1, f"bid {amount}"), keys[player].private_pem).to_armor()
    mailbox.Maildir(mail).add(f"From: {player}@example.org\nSubject: bid\nMessage-ID: <{game}{player}@x>\n\n"
                              f"{armor}".encode())


def test_one_run_ingests_ticks_pairs_and_sends_in_that_order(club: dict[str, object], tmp_path: Path) -> None:
    home, mail = club["home"], club["mail"]
    assert isinstance(home, Path) and isinstance(mail, Path)
    bid(club, "cup-r1-1", "Ann", 2)
    bid(club, "cup-r1-1", "Bob", 1)
    bid(club, "cup-r1-2", "Cid", 1)
    bid(club, "cup-r1-2", "Dan", 0)
    out_dir = tmp_path / "out"
    base = ["run", "--maildir", str(mail), "--from", "club@example.org", "--now", "2026-01-01T00:00:00Z"]
    out = ok(home, *base, "--dry-run", str(out_dir))
    # the mail came in, so the round was over before the tournaments advanced: round 2 is paired in the same run
    assert "cup: round 1 complete; standings queued for every player" in out
    assert "cup: round 2 paired" in out
    summary = out.strip().splitlines()[-1]
    assert summary.startswith("run 2026-01-01T00:00:00Z: mail: 4 accepted; deadlines: 0 step(s) resolved, "
                              "0 reminder(s); tournaments: 2 result(s), 1 round(s) paired; sent: ")
    # and the sending came last: round 2's first reports and pairings went out in this run
    subjects = {email.message_from_bytes(p.read_bytes(), policy=policy.default)["Subject"]
                for p in out_dir.rglob("*.eml")}
    assert "[cup] standings after round 1" in subjects
    assert any(s.startswith("[cup] round 2: you play") for s in subjects)
    assert any("cup-r2-1" in s and "round 1 of 1: bid" in s for s in subjects), subjects
    # for real this time (marking sent); then a run with nothing to do
    ok(home, *base, "--smtp", "127.0.0.1:1", "--dry-run", str(out_dir))
    # round 2 is decided at its deadline by the run's tick, recorded and ends the tournament in the same run
    late = ["run", "--from", "club@example.org", "--now", "2999-01-01T00:00:00Z", "--dry-run", str(out_dir)]
    out = ok(home, *late)
    assert "deadlines: 2 step(s) resolved" in out and "tournaments: 2 result(s), 0 round(s) paired" in out
    assert "cup: round 2 complete; final standings queued for every player" in out
    assert "mail:" not in out.splitlines()[-1]  # no mailbox given: nothing fetched
    assert "over" in ok(home, "tournament", "standings", "cup").splitlines()[0]


def test_two_runs_never_overlap(club: dict[str, object]) -> None:
    home = club["home"]
    assert isinstance(home, Path)
    with run_lock(Home(home)):
        r = cli(home, "run", "--from", "club@example.org", "--dry-run", str(home.parent / "out"))
    assert r.exit_code == 0
    assert "another `pbem run` is running on" in r.output and "this run does nothing" in r.output
    assert "(pid " in r.output
    assert not (home.parent / "out").exists()
    assert "run " in ok(home, "run", "--from", "club@example.org", "--dry-run", str(home.parent / "out"))


def test_exit_1_only_when_something_needs_the_moderator(club: dict[str, object], tmp_path: Path) -> None:
    home = club["home"]
    assert isinstance(home, Path)
    base = ["run", "--from", "club@example.org", "--dry-run", str(tmp_path / "out")]
    r = cli(home, *base, "--maildir", str(tmp_path / "mail"))
    assert r.exit_code == 0 and "NEEDS THE MODERATOR" not in r.output
    # a mailbox that cannot be read: everything else is still done, and the exit code says so
    r = cli(home, *base, "--maildir", str(tmp_path / "no-such-maildir"))
    assert r.exit_code == 1
    assert "needs the moderator: mail:" in r.output and "is not a Maildir folder" in r.output
    assert "NEEDS THE MODERATOR: 1 problem(s)" in r.output and "sent: " in r.output
    # a damaged game file
    (home / "broken.db").write_bytes(b"this is not a database" * 100)
    r = cli(home, *base)
    assert r.exit_code == 1 and "needs the moderator: game broken:" in r.output
    (home / "broken.db").unlink()
    # the SMTP server is gone
    r = cli(home, "run", "--from", "club@example.org", "--smtp", f"127.0.0.1:{_closed_port()}")
    assert r.exit_code == 1 and "needs the moderator: send: cannot use the mail server" in r.output


def test_every_runs_in_a_loop(club: dict[str, object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = club["home"]
    assert isinstance(home, Path)
    slept: list[float] = []
    monkeypatch.setattr("time.sleep", lambda s: slept.append(s))
    out = ok(home, "run", "--from", "club@example.org", "--dry-run", str(tmp_path / "out"), "--every", "5m",
             "--count", "3")
    assert len([ln for ln in out.splitlines() if ln.startswith("run ")]) == 3
    assert len(slept) == 2 and all(290 < s <= 300 for s in slept)
    r = cli(home, "run", "--from", "club@example.org", "--count", "2")
    assert r.exit_code == 2 and "--count goes with --every" in r.output
    r = cli(home, "run", "--from", "club@example.org", "--imap", "imaps://a@127.0.0.1/")
    assert r.exit_code == 2 and "PBEM_IMAP_PASSWORD" in r.output


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
