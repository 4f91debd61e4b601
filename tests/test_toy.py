"""The core runs a second game: sealed bids (tests/toygame.py) through the whole real pipeline.

`pbem new --system toy`, signed submissions by file and by email, per-side reports by email,
a deadline, the end of the game, and `pbem verify` that catches a changed byte. Nothing here
names Julius Caesar: the core serves any game behind pbem.core.game.GameSystem.
"""

from __future__ import annotations

import email
import mailbox
import sqlite3
from email import policy
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

import toygame
from homecli import cli, ok
from pbem.cli import main
from pbem.envelope import generate_keypair, new_envelope, sign_envelope
from pbem.games import find_game, game_names, register
from pbem.store import Store

if TYPE_CHECKING:
    from conftest import Spy

register(toygame.SYSTEM)


@pytest.fixture()
def toy(tmp_path: Path) -> dict[str, object]:
    keys = {s: generate_keypair() for s in toygame.SIDES}
    for s, k in keys.items():
        (tmp_path / f"{s}.pub").write_text(k.public_text + "\n")
    home = tmp_path / "home"
    out = ok(home, "new", "t1", "--system", "toy", "-o", "rounds=2", "-o", "budget=5", "--deadline", "24h",
             "--player", "North=north@example.org", "--key", f"North={tmp_path / 'North.pub'}",
             "--player", "south=south@example.org", "--key", f"SOUTH={tmp_path / 'South.pub'}", "--seed", "1")
    assert "Sealed bids (a test game): budget 5, rounds 2, deadline per step 1d\nPRACTICE GAME: seed 1" in out
    return {"home": home, "keys": keys}


def signed(keys: dict[str, object], side: str, step: int, text: str) -> str:
    return sign_envelope(new_envelope("t1", side, step, text), keys[side].private_pem).to_json()  # type: ignore[attr-defined]


def test_the_registry_finds_the_toy_and_refuses_unknown_games() -> None:
    assert find_game("toy") is toygame.SYSTEM and {"caesar", "toy"} <= set(game_names())
    r = CliRunner().invoke(main, ["new", "x", "--system", "chess"])
    assert r.exit_code == 1 and "unknown game system 'chess'; the games here are: caesar" in r.output


def test_a_toy_game_by_file_and_mail_to_its_end_and_verify(toy: dict[str, object], tmp_path: Path) -> None:
    home, keys = toy["home"], toy["keys"]
    assert isinstance(home, Path) and isinstance(keys, dict)
    # a sealed bid by file: the other side's report says nothing of it
    (tmp_path / "n1.json").write_text(signed(keys, "North", 1, "bid 3"))
    assert "accepted" in ok(home, "submit", str(tmp_path / "n1.json"))
    assert "waits for South (North: orders in)" in ok(home, "status", "--game", "t1")
    south = ok(home, "report", "--game", "t1", "--side", "South")
    assert "bid 3" not in south and "North's sealed bid" not in south and "South has 5 coins" in south
    # a bad bid is refused with what would be right, naming only the side's own budget
    (tmp_path / "s-bad.json").write_text(signed(keys, "South", 1, "bid 9"))
    r = cli(home, "submit", str(tmp_path / "s-bad.json"))
    assert "you have 5 coins left; bid 0 to 5" in r.output
    # South's bid by email: the round resolves, both reports show it
    armor = sign_envelope(new_envelope("t1", "South", 1, "bid 2"), keys["South"].private_pem).to_armor()
    box = mailbox.Maildir(tmp_path / "mail")
    box.add(f"From: south@example.org\nTo: club@example.org\nSubject: bid\nMessage-ID: <s1@x>\n\n{armor}".encode())
    assert "t1: South, step 1: accepted" in ok(home, "inbox", "--maildir", str(tmp_path / "mail"))
    assert "round 1: North bid 3, South bid 2; North wins it" in ok(home, "report", "--game", "t1", "--side", "South")
    # round 2 is decided at its deadline: nobody sent a bid
    ok(home, "tick", "--now", "2999-01-01T00:00:00Z")
    status = ok(home, "status", "--game", "t1")
    assert "North wins 1-0" in status
    assert "over: North wins 1-0" in ok(home, "games")
    # mail out: each side gets only its own reports
    out = tmp_path / "out"
    ok(home, "send", "--game", "t1", "--from", "club@example.org", "--dry-run", str(out))
    to = {email.message_from_bytes(p.read_bytes(), policy=policy.default)["To"] for p in out.rglob("*.eml")}
    assert to == {"north@example.org", "south@example.org"}
    for p in out.rglob("*.eml"):
        msg = email.message_from_bytes(p.read_bytes(), policy=policy.default)
        body = msg.get_body(("plain", "html")).get_content()  # type: ignore[union-attr]
        other = "South" if msg["To"].startswith("north") else "North"
        assert f"{other} has" not in body  # an enemy's budget is never in a side's report
    assert "t1: OK: 3 steps" in ok(home, "verify", "--game", "t1")
    # one changed byte in a stored report is caught
    from pbem.bodies import pack, unpack

    with sqlite3.connect(home / "t1.db") as db:
        oid, body = db.execute("SELECT id, body FROM outbox WHERE recipient = 'North' AND step = 2 "
                               "AND format = 'text' AND kind = 'report'").fetchone()
        db.execute("UPDATE outbox SET body = ? WHERE id = ?", (pack(unpack(body).replace("coins", "coin!")), oid))
    r = cli(home, "verify", "--game", "t1")
    assert r.exit_code != 0 and "report for North differs" in r.output


def test_toy_options_are_checked_against_the_games_list(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["--home", str(tmp_path), "new", "t", "--system", "toy", "-o", "rounds=12",
                                  "--password", "North=a", "--password", "South=b"])
    assert r.exit_code == 1 and "option rounds is one of 1, 2, 3" in r.output
    r = CliRunner().invoke(main, ["--home", str(tmp_path), "new", "t", "--system", "toy", "-o", "colour=red",
                                  "--password", "North=a", "--password", "South=b"])
    assert r.exit_code == 1 and "unknown option 'colour'; this game's options are: rounds, budget" in r.output
    r = CliRunner().invoke(main, ["--home", str(tmp_path), "new", "t", "--system", "toy",
                                  "--password", "North=a", "--password", "East=b"])
    assert r.exit_code == 2 and "'East' is not a side of this game; use North or South" in r.output


def test_the_inbox_warm_up_and_router_serve_another_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         calls: Spy) -> None:
    """`pbem inbox` with workers on toy games (the first game's first message fed at once, a toy report
    rendered and dropped, a forked router for the rest): the same results and files as one process."""
    import shutil

    from pbem.store import Home
    from pbem.transport import inbox

    keys = {s: generate_keypair() for s in toygame.SIDES}
    for s, k in keys.items():
        (tmp_path / f"{s}.pub").write_text(k.public_text + "\n")
    a, b = tmp_path / "a", tmp_path / "b"
    raws = []
    for gid in ("t1", "t2", "t3"):
        ok(a, "new", gid, "--system", "toy", "-o", "rounds=2", "--seed", "3",
           "--player", "North=north@example.org", "--key", f"North={tmp_path / 'North.pub'}",
           "--player", "South=south@example.org", "--key", f"South={tmp_path / 'South.pub'}")
        for side, bid in (("North", 2), ("South", 1)):
            armor = sign_envelope(new_envelope(gid, side, 1, f"bid {bid}"), keys[side].private_pem).to_armor()
            raws.append(f"From: {side.lower()}@example.org\nSubject: bid\nMessage-ID: <{gid}{side}@x>\n\n{armor}".encode())
    shutil.copytree(a, b)
    monkeypatch.setattr(inbox, "ROUTER_MIN", 2)
    warmed = calls(Store, "warm_up", lambda store: store.game_id)
    lines = {}
    for home, jobs in ((a, 2), (b, 1)):
        run = inbox.ingest(Home(home), "test", list(range(len(raws))), raws.__getitem__, jobs=jobs)
        lines[jobs] = [r.line() for r in run.results]
    assert warmed == ["t1"]  # (by the run with workers)
    assert lines[2] == lines[1] and all(": accepted" in line for line in lines[1])
    for gid in ("t1", "t2", "t3"):
        assert ok(a, "report", "--game", gid, "--side", "North") == ok(b, "report", "--game", gid, "--side", "North")
        assert f"{gid}: OK" in ok(a, "verify", "--game", gid)
