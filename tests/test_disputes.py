"""`pbem submissions`: every submission a game received, from the stored records, for the moderator
settling "I sent my orders on time": how it came, what it claimed, the verdict, the deadline, and
never the orders' text unless --orders is asked for."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner

from pbem.cli import main
from pbem.disputes import submission_lines
from pbem.games.caesar.rules.board import Side
from pbem.store import Home, MessageKey
from store_helpers import make_game, signed

C, P = Side.CAESAR, Side.POMPEY
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def _played(home: Path) -> tuple[dict[Side, str], str]:
    now = [T0]
    keys = make_game(home, "g", clock=lambda: now[0], deadline=timedelta(hours=72))
    h = Home(home, clock=lambda: now[0])
    with h.open("g") as st:
        hands = st.adjudication().session.game.state.hands
        good = {s: f"discard {hands[s][0]}\nplay {hands[s][1]}" for s in Side}
        now[0] = T0 + timedelta(hours=1)
        raw = signed(keys, C, 1, good[C])
        st.receive(raw, "Maildir <c1@example.org>",
                   message=MessageKey(hashlib.sha256(b"mail " + raw).hexdigest(), "<c1@example.org>"))
        now[0] = T0 + timedelta(hours=2)
        st.receive(signed(keys, P, 1, "discard Nonesuch\nplay 3/2"), "pompey.json")
        st.receive(b"hello, where is my report?", "note.txt")
        now[0] = T0 + timedelta(hours=80)
        assert st.tick()  # step 1 resolves with Pompey's defaults
        now[0] = T0 + timedelta(hours=81)
        st.receive(signed(keys, P, 1, good[P], n=1), "pompey-late.json")
        deadline = st.submission_records()[2][1]
    assert deadline is not None
    return good, deadline


def test_the_library_lists_every_submission_with_its_verdict_and_deadline(tmp_path: Path) -> None:
    home = tmp_path / "home"
    good, deadline = _played(home)
    with Home(home).open("g") as st:
        lines = submission_lines(st.submission_records())
        orders = submission_lines(st.submission_records(), orders=True)
        step1 = submission_lines(st.submission_records(), step=1)
        step2 = submission_lines(st.submission_records(), step=2)
    assert [(x.id, x.via, x.side, x.step, x.verdict) for x in lines] == [
        (1, "mail", "Caesar", 1, "accepted"), (2, "file", "Pompey", 1, "rejected"),
        (3, "file", None, None, "rejected"), (4, "file", "Pompey", 1, "rejected")]
    mail, bad, junk, late = lines
    assert mail.message_ids == ("<c1@example.org>",) and mail.credential == "signed"
    assert mail.sent == "2025-03-01T12:00:00Z" and mail.deadline == deadline == "2025-03-04T12:00:00Z"
    assert mail.on_time is True and late.on_time is False
    assert bad.errors == 1 and bad.reason == "1 error; nothing was applied"
    assert junk.credential == "unreadable" and junk.reason.startswith("cannot read the submission")
    assert junk.deadline is None and junk.on_time is None
    assert late.received == "2025-03-04T21:00:00Z"
    # without --orders nothing of any side's orders is shown, not even the errors (they quote them)
    text = "\n".join(t for x in lines for t in x.lines()) + json.dumps([x.to_json() for x in lines])
    for o in (*good.values(), "Nonesuch"):
        for part in o.splitlines():
            assert part not in text
    assert orders[0].orders == tuple(good[C].splitlines())
    assert orders[1].error_lines and "Nonesuch" in orders[1].error_lines[0]["text"]
    assert [x.id for x in step1] == [1, 2, 4] and step2 == []


def test_the_command_prints_text_and_json(tmp_path: Path) -> None:
    home = tmp_path / "home"
    good, deadline = _played(home)
    runner = CliRunner()
    r = runner.invoke(main, ["--home", str(home), "submissions", "g"])
    assert r.exit_code == 0, r.output
    out = r.stdout.splitlines()
    assert out[0] == "#1 2025-03-01T13:00:00Z mail Maildir <c1@example.org>: Caesar, step 1: accepted"
    assert out[1] == ("    signed; envelope time 2025-03-01T12:00:00Z; due 2025-03-04T12:00:00Z: on time; "
                      "Message-ID <c1@example.org>")
    assert "#2 2025-03-01T14:00:00Z file pompey.json: Pompey, step 1: rejected" in out
    assert "    1 order error or warning (--orders shows them)" in out
    assert "#3 2025-03-01T14:00:00Z file note.txt: ?, step ?: rejected" in out
    assert any(line.endswith("due 2025-03-04T12:00:00Z: LATE") for line in out)
    assert "Nonesuch" not in r.stdout and good[C].splitlines()[0] not in r.stdout
    r = runner.invoke(main, ["--home", str(home), "submissions", "g", "--orders", "--step", "1"])
    assert r.exit_code == 0 and "Nonesuch" in r.stdout and f"    | {good[C].splitlines()[0]}" in r.stdout
    r = runner.invoke(main, ["--home", str(home), "submissions", "g", "--json", "--step", "1"])
    data = json.loads(r.stdout)
    assert [d["id"] for d in data] == [1, 2, 4] and "orders" not in data[0]
    r = runner.invoke(main, ["--home", str(home), "submissions", "g", "--step", "9"])
    assert r.exit_code == 0 and r.stdout == "g: no submissions for step 9\n"
    r = runner.invoke(main, ["--home", str(home), "submissions", "nosuch"])
    assert r.exit_code == 1 and "nosuch" in r.output
