"""Draw offers, read by the core whatever the game (pbem/control.py): `offer draw` stands for its step
and the next, the other side is told at once (a notice mail) and in his next report, `accept draw`
ends the game drawn by agreement, a tournament counts half a point each, and `pbem verify` replays it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as hs

import toygame
from pbem.cli import main
from pbem.control import ACCEPT_DRAW, OFFER_DRAW, find_control, standing_offers
from pbem.envelope import generate_keypair, new_envelope, password_submission, sign_envelope
from pbem.games import register
from pbem.games.caesar.rules.board import Side
from pbem.store import Home
from pbem.tables import Verdict
from pbem.tournament import Tournament
from store_helpers import make_game, signed

register(toygame.SYSTEM)
C, P = Side.CAESAR, Side.POMPEY


def test_offer_and_accept_are_control_lines_that_stand_alone() -> None:
    assert find_control(["  Offer   DRAW "]).word == OFFER_DRAW  # type: ignore[union-attr]
    assert find_control(["", "accept draw"]).word == ACCEPT_DRAW  # type: ignore[union-attr]
    assert find_control(["offer a draw"]) is None  # not a control line: the game reads it (and refuses it)
    try:
        find_control(["offer draw", "play 3/2"])
    except Exception as exc:  # noqa: BLE001
        assert "`offer draw` stands alone" in exc.errors[0].message  # type: ignore[attr-defined]
    else:
        raise AssertionError("an offer beside orders was taken")


@given(hs.lists(hs.tuples(hs.sampled_from(["Caesar", "Pompey"]), hs.sampled_from([OFFER_DRAW, "play 1/2", "resign"]),
                          hs.integers(1, 20)), max_size=12), hs.integers(1, 22))
def test_a_sides_latest_offer_stands_for_its_step_and_the_next(accepted: list[tuple[str, str, int]],
                                                                open_step: int) -> None:
    accepted = sorted(accepted, key=lambda a: a[2])  # in the order received: the steps never go back
    latest = {side: step for side, orders, step in accepted if orders == OFFER_DRAW}
    assert standing_offers(accepted, open_step) == {s: n for s, n in latest.items() if n in (open_step, open_step - 1)
                                                    or n > open_step}


def _cards(st: object) -> dict[Side, str]:
    hands = st.adjudication().session.game.state.hands  # type: ignore[attr-defined]
    return {s: f"discard {hands[s][0]}\nplay {hands[s][1]}" for s in Side}


def test_caesar_a_draw_is_offered_told_accepted_and_replayed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = make_game(home, "g")
    with Home(home).open("g") as st:
        none = st.receive(signed(keys, P, 1, "accept draw"))
        assert none.verdict is Verdict.REJECTED
        assert none.errors[0]["message"].startswith("no draw offer of Caesar stands, so there is nothing to accept")
        cards = _cards(st)
        assert st.receive(signed(keys, C, 1, cards[C])).verdict is Verdict.ACCEPTED
        offer = st.receive(signed(keys, C, 1, "Offer draw"))
        assert offer.verdict is Verdict.ACCEPTED and not offer.resolved
        assert st.status().received == ("Caesar",)  # his sealed orders still stand
        told = [e.text for _, _, e in st.events("Pompey")][-1]
        assert told.startswith("Caesar offers a draw: Pompey may accept it by sending `accept draw`")
        assert "until step 2 is over" in told
        (notice,) = st.outbox(kind="notice")
        assert notice.recipient == "Pompey" and notice.email == "pompey@example.org" and "Caesar offers a draw" in (
            notice.body or "")
        assert st.status().draw_offers == {"Caesar": 2} and st.status().to_json()["draw_offers"] == {"Caesar": 2}
        assert st.receive(signed(keys, P, 1, cards[P])).resolved  # the step resolves; the offer still stands
        assert st.status().draw_offers == {"Caesar": 2}
        assert "Caesar offers a draw" in (st.report("Pompey").body or "")  # in his next report too
        step = st.status().step
        r = st.receive(signed(keys, P, step, "accept draw"))
        assert r.verdict is Verdict.ACCEPTED and r.resolved
        s = st.status()
        assert s.over and s.summary.winner is None and s.draw_offers == {}
        assert s.result.startswith("a draw: drawn by agreement; score Caesar ")
        for side in ("Caesar", "Pompey", "moderator"):
            assert st.report(side).step == s.step and "drawn by agreement" in (st.report(side).body or "")
        assert [e.kind for _, _, e in st.events("Caesar")][-2:] == ["draw-agreed", "game-over"]
        assert st.verify().ok
    run = CliRunner()
    for args, want in ((["status", "--game", "g"], "drawn by agreement"), (["games"], "a draw: drawn by agreement"),
                       (["log", "--game", "g", "--side", "Caesar"], "Pompey accepts the draw Caesar offered")):
        out = run.invoke(main, ["--home", str(home), *args])
        assert out.exit_code == 0 and want in out.output, (args, out.output)
    out = run.invoke(main, ["--home", str(home), "send", "--from", "m@example.org", "--dry-run", str(tmp_path / "o")])
    assert out.exit_code == 0, out.output
    notices = sorted((tmp_path / "o").rglob("*notice-Pompey*"))
    assert len(notices) == 1 and "Subject: [g] step 1: Caesar offers a draw" in notices[0].read_text()
    out = run.invoke(main, ["--home", str(home), "audit", "export", "g", "-o", str(tmp_path / "g.audit.json")])
    assert out.exit_code == 0, out.output
    out = run.invoke(main, ["audit", "check", str(tmp_path / "g.audit.json")])
    assert out.exit_code == 0 and out.output.startswith("g: OK"), out.output
    # the offer is a stored submission: altered, the acceptance no longer replays
    db = sqlite3.connect(home / "g.db")
    sid, raw = db.execute("SELECT id, raw FROM submission WHERE orders = 'offer draw'").fetchone()
    db.execute("UPDATE submission SET raw = ? WHERE id = ?", (raw.replace(b"Offer draw", b"offer draw"), sid))
    db.commit()
    db.close()
    with Home(home).open("g") as st:
        rep = st.verify()
    assert not rep.ok and f"submission #{sid}" in " ".join(rep.problems)


def test_an_offer_lapses_when_the_game_moves_past_the_next_step_and_two_offers_agree(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = make_game(home, "g")
    with Home(home).open("g") as st:
        assert st.receive(signed(keys, P, 1, "offer draw")).verdict is Verdict.ACCEPTED
        cards = _cards(st)
        for s in Side:
            st.receive(signed(keys, s, 1, cards[s]))
        # step 2 (Caesar's or Pompey's command): the offer of step 1 still stands; resolve it by a forfeit-free way:
        # the side awaited sends an empty command, which is legal orders
        status = st.status()
        assert status.step == 2
        waiting = Side(status.awaiting[0])
        orders = st.system.random_orders(st.adjudication(), waiting.value, 1)
        assert st.receive(signed(keys, waiting, 2, orders)).verdict is Verdict.ACCEPTED
        assert st.status().step > 2 and not st.status().over
        assert st.status().draw_offers == {}  # lapsed
        late = st.receive(signed(keys, C, st.status().step, "accept draw"))
        assert late.verdict is Verdict.REJECTED and "no draw offer of Pompey stands" in late.errors[0]["message"]
        # a fresh offer by each side: the second one agrees
        step = st.status().step
        assert not st.receive(signed(keys, C, step, "offer draw")).resolved
        r = st.receive(signed(keys, P, step, "offer draw"))
        assert r.verdict is Verdict.ACCEPTED and r.resolved and st.status().result.startswith("a draw: drawn by agreement")
        assert st.verify().ok


def test_a_toy_game_drawn_by_password_mail_counts_half_a_point_each_in_a_tournament(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run = CliRunner()
    assert run.invoke(main, ["--home", str(home), "tournament", "new", "t", "--rounds", "1", "--system", "toy",
                             "--seed", "3", "--deadline", "24h"]).exit_code == 0
    for p in ("Ann", "Bob"):
        assert run.invoke(main, ["--home", str(home), "tournament", "add", "t", "--player", p, "--email",
                                 f"{p.lower()}@example.org", "--password", f"{p} pw"]).exit_code == 0
    assert run.invoke(main, ["--home", str(home), "tournament", "pair", "t"]).exit_code == 0
    with Home(home).open("t-r1-1") as st:
        side = {p.email: p.side for p in st.players()}
        ann, bob = side["ann@example.org"], side["bob@example.org"]
        offer = password_submission(new_envelope("t-r1-1", ann, 1, "offer draw"), "Ann pw")
        assert st.receive(offer.to_armor().encode()).verdict is Verdict.ACCEPTED
        accept = password_submission(new_envelope("t-r1-1", bob, 1, "accept draw"), "Bob pw")
        r = st.receive(accept.to_armor().encode())
        assert r.verdict is Verdict.ACCEPTED and r.resolved
        assert st.status().result == "a draw (drawn by agreement), score 0-0"
        assert "drawn by agreement" in (st.report(ann).body or "")
        assert st.verify().ok
    with Tournament(Home(home), "t") as t:
        t.record_results()
        (pr,) = t.pairings(1)
        assert pr.over and pr.winner is None and "drawn by agreement" in pr.result
    out = run.invoke(main, ["--home", str(home), "tournament", "standings", "t", "--format", "json"])
    assert out.exit_code == 0, out.output
    import json
    rows = {r["player"]: r for r in json.loads(out.output)["standings"]}
    assert rows["Ann"]["points"] == rows["Bob"]["points"] == 0.5 and rows["Ann"]["draws"] == 1


def test_a_signed_offer_by_file_through_the_command_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = make_game(home, "g")
    f = tmp_path / "offer.json"
    env = new_envelope("g", "Caesar", 1, "offer draw")
    f.write_text(sign_envelope(env, keys[C].private_pem).to_json())
    out = CliRunner().invoke(main, ["--home", str(home), "submit", str(f)])
    assert out.exit_code == 0 and "accepted" in out.output, out.output
    out = CliRunner().invoke(main, ["--home", str(home), "status", "--game", "g"])
    assert "  Caesar offers a draw (it stands until step 2 is over)" in out.output.splitlines()
    other = generate_keypair()  # a stranger's acceptance is not Pompey's
    forged = sign_envelope(new_envelope("g", "Pompey", 1, "accept draw"), other.private_pem).to_json()
    with Home(home).open("g") as st:
        assert st.receive(forged.encode()).verdict is Verdict.REJECTED and not st.status().over


def test_an_offer_by_mail_is_answered_and_the_other_side_gets_a_notice(tmp_path: Path) -> None:
    import mailbox

    home = tmp_path / "home"
    keys = make_game(home, "g")
    box = mailbox.Maildir(tmp_path / "mail")
    armor = sign_envelope(new_envelope("g", "Caesar", 1, "offer draw"), keys[C].private_pem).to_armor()
    box.add(f"From: caesar@example.org\nSubject: draw?\nMessage-ID: <o1@x>\n\n{armor}".encode())
    out = CliRunner().invoke(main, ["--home", str(home), "inbox", "--maildir", str(tmp_path / "mail")])
    assert out.exit_code == 0 and "g: Caesar, step 1: accepted (submission #1)" in out.output, out.output
    with Home(home).open("g") as st:
        (reply,) = st.outbox(kind="reply")
        assert reply.recipient == "Caesar" and "your offer of a draw was received" in (reply.body or "")
        assert "until step 2 is over" in (reply.body or "")
        (notice,) = st.outbox(kind="notice")
        assert notice.recipient == "Pompey" and notice.submission_id == reply.submission_id


def test_orders_sent_after_an_offer_or_an_absence_leave_them_standing(tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    home = tmp_path / "home"
    now = [datetime(2025, 3, 1, 12, 0, tzinfo=UTC)]
    keys = make_game(home, "g", clock=lambda: now[0], deadline=timedelta(hours=72))
    with Home(home, clock=lambda: now[0]).open("g") as st:
        cards = _cards(st)
        assert st.receive(signed(keys, C, 1, "offer draw")).verdict is Verdict.ACCEPTED
        assert st.receive(signed(keys, C, 1, "away until 2025-03-06")).verdict is Verdict.ACCEPTED
        r = st.receive(signed(keys, C, 1, cards[C]))  # his orders supersede neither
        assert r.verdict is Verdict.ACCEPTED and r.related is None
        assert st.status().deadline == "2025-03-06T00:00:00Z"
        assert st.receive(signed(keys, P, 1, "accept draw")).resolved
        assert st.status().result.startswith("a draw: drawn by agreement")
        assert st.verify().ok
