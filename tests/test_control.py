"""Control lines read by the core whatever the game (pbem/control.py): `resign` ends the game through
Adjudication.conclude (Julius Caesar and the toy game), both sides get the final report, `pbem verify`
replays it, and a tournament records the resignation as a win for the other side."""

from __future__ import annotations

import sqlite3
from datetime import UTC
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as hs

import toygame
from pbem.cli import main
from pbem.control import RESIGN, find_control
from pbem.core.orders import SubmissionRejected
from pbem.envelope import generate_keypair, new_envelope, password_submission, sign_envelope
from pbem.games import register
from pbem.games.caesar.rules.board import Side
from pbem.store import Home
from pbem.tables import Verdict
from pbem.tournament import Tournament
from store_helpers import make_game, signed

register(toygame.SYSTEM)
C, P = Side.CAESAR, Side.POMPEY


def test_control_lines_are_found_whatever_the_case_and_spacing_and_stand_alone() -> None:
    assert find_control(["discard 2/1", "play 3/2"]) is None
    assert find_control(["  ReSign  "]) is not None and find_control(["", "resign", " "]).lineno == 2  # type: ignore[union-attr]
    with pytest.raises(SubmissionRejected) as exc:
        find_control(["resign", "play 3/2"])
    assert [(e.lineno, e.text) for e in exc.value.errors] == [(2, "play 3/2")]
    assert "`resign` stands alone" in exc.value.errors[0].message
    assert find_control(["resign now"]) is None  # not a control line: the game reads it (and refuses it)


@given(hs.lists(hs.text(alphabet="abcdefghijklmnopqrstuvwxyz 0123456789/->:", max_size=20), max_size=6))
def test_find_control_never_fails_but_by_rejection(lines: list[str]) -> None:
    try:
        c = find_control(lines)
    except SubmissionRejected as exc:
        assert exc.errors and any(" ".join(x.split()) == RESIGN for x in lines)
    else:
        assert (c is not None) == any(" ".join(x.split()).lower() == RESIGN for x in lines)


def test_a_caesar_side_resigns_at_a_step_that_does_not_wait_for_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = make_game(home, "g")
    with Home(home).open("g") as st:
        hands = st.adjudication().session.game.state.hands  # type: ignore[attr-defined]
        receipts = [st.receive(signed(keys, s, 1, f"discard {hands[s][0]}\nplay {hands[s][1]}")) for s in Side]
        assert receipts[-1].resolved
        step = st.status()
        assert len(step.awaiting) == 1  # a command step: it waits for one side only
        loser = next(s for s in Side if s.value not in step.awaiting)
        winner = P if loser is C else C
        r = st.receive(signed(keys, loser, step.step, "resign\nmove Roma -> Genua: Legio 1"))
        assert r.verdict is Verdict.REJECTED and "`resign` stands alone" in r.errors[0]["message"]
        r = st.receive(signed(keys, loser, step.step, "  RESIGN "))
        assert r.verdict is Verdict.ACCEPTED and r.resolved
        s = st.status()
        assert s.over and s.summary.winner == winner.value
        assert s.result.startswith(f"{winner.value} wins: {loser.value} resigned; score Caesar ")
        # both sides (and the moderator) get the final report, saying who won and how
        for side in (C.value, P.value, "moderator"):
            body = st.report(side).body or ""
            assert st.report(side).step == s.step and f"{loser.value} resigned" in body
        log = [ev for _, _, ev in st.events(winner.value)]
        assert [e.kind for e in log[-2:]] == ["resign", "game-over"]
        r = st.receive(signed(keys, winner, s.step, "resign"))
        assert r.verdict is Verdict.REJECTED
        assert st.verify().ok
    # an altered resignation is caught by the audit
    db = sqlite3.connect(home / "g.db")
    sid = db.execute("SELECT id FROM submission WHERE orders = 'resign'").fetchone()[0]
    raw = db.execute("SELECT raw FROM submission WHERE id = ?", (sid,)).fetchone()[0]
    db.execute("UPDATE submission SET raw = ? WHERE id = ?", (raw.replace(b"RESIGN", b"resign"), sid))
    db.commit()
    db.close()
    with Home(home).open("g") as st:
        report = st.verify()
    assert not report.ok and any(f"submission #{sid}" in p for p in report.problems)


def test_a_toy_game_resigned_by_password_mail_verifies(tmp_path: Path) -> None:
    home = tmp_path / "home"
    r = CliRunner().invoke(main, ["--home", str(home), "new", "t", "--system", "toy", "--seed", "1",
                                  "--player", "North=n@example.org", "--password", "North=north pw",
                                  "--player", "South=s@example.org", "--password", "South=south pw"])
    assert r.exit_code == 0, r.output
    with Home(home).open("t") as st:
        sub = password_submission(new_envelope("t", "South", 1, "resign"), "south pw")
        receipt = st.receive(sub.to_armor().encode())
        assert receipt.verdict is Verdict.ACCEPTED and receipt.resolved
        s = st.status()
        assert s.over and s.summary.winner == "North" and s.result == "North wins (South resigned), score 0-0"
        assert "South resigned" in (st.report("South").body or "")
        assert st.verify().ok


def test_a_tournament_records_a_resignation_as_a_win_for_the_other_side(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = {p: generate_keypair() for p in ("Ann", "Bob")}
    for p, k in keys.items():
        (tmp_path / f"{p}.pub").write_text(k.public_text)
    run = CliRunner()
    assert run.invoke(main, ["--home", str(home), "tournament", "new", "t", "--rounds", "1", "--system", "toy",
                             "--seed", "3", "--deadline", "24h"]).exit_code == 0
    for p in keys:
        assert run.invoke(main, ["--home", str(home), "tournament", "add", "t", "--player", p, "--email",
                                 f"{p.lower()}@example.org", "--key", str(tmp_path / f"{p}.pub")]).exit_code == 0
    assert run.invoke(main, ["--home", str(home), "tournament", "pair", "t"]).exit_code == 0
    with Home(home).open("t-r1-1") as st:
        bob_side = next(p.side for p in st.players() if p.email == "bob@example.org")
        env = new_envelope("t-r1-1", bob_side, 1, "resign")
        assert st.receive(sign_envelope(env, keys["Bob"].private_pem).to_json().encode()).resolved
    with Tournament(Home(home), "t") as t:
        done = t.record_results()
        assert done and "Ann wins" in done[0]
        (pr,) = t.pairings(1)
        assert pr.over and pr.winner == "Ann" and f"{bob_side} resigned" in pr.result


def test_the_moderator_forfeits_a_side_and_the_audit_replays_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make_game(home, "g")
    run = CliRunner()

    def pbem(*args: str) -> tuple[int, str]:
        r = run.invoke(main, ["--home", str(home), *args])
        return r.exit_code, r.output

    code, out = pbem("forfeit", "g", "--side", "pompey")
    assert code == 0, out
    assert out.startswith("g: Pompey forfeits (submission #1, the moderator's); Caesar wins: Pompey forfeited "
                          "(the moderator's ruling); score Caesar ")
    with Home(home).open("g") as st:
        s = st.status()
        assert s.over and s.summary.winner == "Caesar"
        for side in ("Caesar", "Pompey"):
            body = st.report(side).body or ""
            assert "The moderator rules that Pompey forfeits the game" in body and "GAME OVER: Caesar wins" in body
        assert st.verify().ok
    code, out = pbem("log", "--game", "g", "--side", "Caesar")
    assert "[all] moderator: The moderator rules that Pompey forfeits the game" in out
    code, out = pbem("forfeit", "g", "--side", "Caesar")
    assert code == 1 and "game g is over" in out
    code, out = pbem("forfeit", "g", "--side", "Crassus")
    assert code == 2 and "'Crassus' is not a side of this game" in out
    code, out = pbem("submissions", "g")
    assert out.splitlines()[:3] == ["#1 " + out.split()[1] + " moderator moderator: moderator, step 1: accepted",
                                    "    moderator", "    reason: the moderator's action: forfeit Pompey"]
    code, out = pbem("audit", "export", "g", "-o", str(tmp_path / "g.audit.json"))
    assert code == 0
    code, out = pbem("audit", "check", str(tmp_path / "g.audit.json"))
    assert code == 0 and out.startswith("g: OK")
    # an altered ruling (another side) is caught
    db = sqlite3.connect(home / "g.db")
    raw = db.execute("SELECT raw FROM submission WHERE id = 1").fetchone()[0]
    db.execute("UPDATE submission SET raw = ? WHERE id = 1", (raw.replace(b"Pompey", b"Caesar"),))
    db.commit()
    db.close()
    code, out = pbem("verify", "--game", "g")
    assert code == 1 and "FAILED" in out


def test_mail_cannot_pass_itself_off_as_the_moderator(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make_game(home, "g")
    with Home(home).open("g") as st:
        raw = b'{"action":"forfeit","format":"pbem-moderator 1","game":"g","side":"Pompey","step":1}'
        r = st.receive(raw, "moderator")
        assert r.verdict is Verdict.REJECTED and "cannot read the submission" in r.reason
        assert not st.status().over


def test_a_tournament_records_a_forfeit(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run = CliRunner()
    assert run.invoke(main, ["--home", str(home), "tournament", "new", "t", "--rounds", "1", "--system", "toy",
                             "--seed", "3", "--deadline", "24h"]).exit_code == 0
    for p in ("Ann", "Bob"):
        assert run.invoke(main, ["--home", str(home), "tournament", "add", "t", "--player", p, "--email",
                                 f"{p.lower()}@example.org", "--password", f"{p} pw"]).exit_code == 0
    assert run.invoke(main, ["--home", str(home), "tournament", "pair", "t"]).exit_code == 0
    with Home(home).open("t-r1-1") as st:
        ann_side = next(p.side for p in st.players() if p.email == "ann@example.org")
    r = run.invoke(main, ["--home", str(home), "forfeit", "t-r1-1", "--side", ann_side])
    assert r.exit_code == 0, r.output
    with Tournament(Home(home), "t") as t:
        t.record_results()
        (pr,) = t.pairings(1)
        assert pr.over and pr.winner == "Bob" and "forfeited" in pr.result


def test_the_moderator_extends_a_deadline_both_sides_are_told_and_verify_replays_it(tmp_path: Path) -> None:
    from datetime import datetime, timedelta

    home = tmp_path / "home"
    now = [datetime(2025, 3, 1, 12, 0, tzinfo=UTC)]
    keys = make_game(home, "g", clock=lambda: now[0], deadline=timedelta(hours=72))
    h = Home(home, clock=lambda: now[0])
    with h.open("g") as st:
        assert st.status().deadline == "2025-03-04T12:00:00Z"
        hands = st.adjudication().session.game.state.hands  # type: ignore[attr-defined]
        assert st.receive(signed(keys, C, 1, f"discard {hands[C][0]}\nplay {hands[C][1]}")).verdict is Verdict.ACCEPTED
        r = st.moderator_action("extend", by=timedelta(hours=48))
        assert r.verdict is Verdict.ACCEPTED and not r.resolved
        st.moderator_action("extend", by=timedelta(hours=1))
        assert st.status().deadline == "2025-03-06T13:00:00Z"
        assert st.status().received == ("Caesar",)  # Caesar's sealed orders still stand
        now[0] = datetime(2025, 3, 5, 12, 0, tzinfo=UTC)  # past the old deadline: nothing happens
        assert st.tick() == []
        assert [e.text for _, _, e in st.events("Pompey")][-2:] == [
            "The moderator extends the deadline of step 1 by 2d", "The moderator extends the deadline of step 1 by 1h"]
        assert st.verify().ok
        now[0] = datetime(2025, 3, 6, 13, 0, tzinfo=UTC)
        assert st.tick() == ["step 1 resolved at its deadline (2025-03-06T13:00:00Z); defaults for Pompey"]
        for side in ("Caesar", "Pompey"):
            assert "The moderator extends the deadline of step 1 by 2d" in (st.report(side).body or "")
        assert st.status().deadline == "2025-03-09T13:00:00Z"  # the next step has its own, unextended
        assert st.verify().ok
    db = sqlite3.connect(home / "g.db")
    raw = db.execute("SELECT raw FROM submission WHERE id = 2").fetchone()[0]
    db.execute("UPDATE submission SET raw = ? WHERE id = 2", (raw.replace(b"172800", b"172860"),))
    db.commit()
    db.close()
    with h.open("g") as st:
        rep = st.verify()
    assert not rep.ok and "submission #2" in " ".join(rep.problems)


def test_extend_from_the_command_line_and_its_refusals(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make_game(home, "g")  # no deadline
    run = CliRunner()
    r = run.invoke(main, ["--home", str(home), "extend", "g", "--by", "48h"])
    assert r.exit_code == 1 and "step 1 of game g has no deadline to extend" in r.output
    make_game(home, "d", deadline=__import__("datetime").timedelta(hours=24))
    r = run.invoke(main, ["--home", str(home), "extend", "d", "--by", "2x"])
    assert r.exit_code == 1 and "'2x' is not a duration" in r.output
    r = run.invoke(main, ["--home", str(home), "extend", "d", "--by", "2d"])
    assert r.exit_code == 0 and r.output.startswith("d: step 1 is now due ")
    r = run.invoke(main, ["--home", str(home), "log", "--game", "d", "--side", "Caesar"])
    assert "[all] moderator: The moderator extends the deadline of step 1 by 2d" in r.output
    r = run.invoke(main, ["--home", str(home), "verify", "--game", "d"])
    assert r.exit_code == 0 and "OK" in r.output


def test_pause_stops_the_clock_and_resume_restarts_it(tmp_path: Path) -> None:
    from datetime import datetime, timedelta

    home = tmp_path / "home"
    now = [datetime(2025, 3, 1, 12, 0, tzinfo=UTC)]
    keys = make_game(home, "g", clock=lambda: now[0], deadline=timedelta(hours=72))
    h = Home(home, clock=lambda: now[0])
    with h.open("g") as st:
        r = st.moderator_action("pause")
        assert r.verdict is Verdict.ACCEPTED
        s = st.status()
        assert s.paused and s.deadline is None and s.to_json()["paused"] is True
        with pytest.raises(Exception, match="is paused already"):
            st.moderator_action("pause")
        with pytest.raises(Exception, match="no deadline to extend \\(the game is paused"):
            st.moderator_action("extend", by=timedelta(hours=1))
        now[0] = datetime(2025, 4, 1, 12, 0, tzinfo=UTC)  # long past the deadline: nothing happens
        assert st.tick() == []
        # orders still come in while paused; a step opened while paused has no running deadline either
        hands = st.adjudication().session.game.state.hands  # type: ignore[attr-defined]
        for side in Side:
            st.receive(signed(keys, side, 1, f"discard {hands[side][0]}\nplay {hands[side][1]}"))
        assert st.status().step == 2 and st.status().deadline is None and st.tick() == []
        now[0] = datetime(2025, 4, 2, 12, 0, tzinfo=UTC)
        st.moderator_action("resume")
        assert st.status().deadline == "2025-04-05T12:00:00Z" and not st.status().paused
        st.moderator_action("extend", by=timedelta(hours=2))
        assert st.status().deadline == "2025-04-05T14:00:00Z"
        with pytest.raises(Exception, match="is not paused"):
            st.moderator_action("resume")
        texts = [e.text for _, _, e in st.events("Caesar") if e.kind == "moderator"]
        assert texts == ["The moderator pauses the game: no deadline runs until he resumes it",
                         "The moderator resumes the game: the open step has a whole deadline from now",
                         "The moderator extends the deadline of step 2 by 2h"]
        assert "The moderator pauses the game" in (st.report("Pompey").body or "")  # step 2's report
        assert st.verify().ok
        now[0] = datetime(2025, 4, 5, 14, 0, tzinfo=UTC)
        assert st.tick()[0].startswith("step 2 resolved at its deadline (2025-04-05T14:00:00Z)")
        assert st.verify().ok
    r = CliRunner().invoke(main, ["--home", str(home), "pause", "g"])
    assert r.exit_code == 0 and r.output.startswith("g: paused: no deadline runs (submission #")
    r = CliRunner().invoke(main, ["--home", str(home), "status", "--game", "g"])
    assert "  paused by the moderator: no deadline runs (`pbem resume` restarts it)" in r.output
    assert "warning" not in r.output
    r = CliRunner().invoke(main, ["--home", str(home), "resume", "g"])
    assert r.exit_code == 0 and " is due " in r.output


def test_a_substitute_takes_over_and_the_old_credentials_stop_at_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = make_game(home, "g")
    sub_keys = {**keys, P: generate_keypair()}
    (tmp_path / "cato.pub").write_text(sub_keys[P].public_text + "\n")
    run = CliRunner()
    with Home(home).open("g") as st:
        hands = st.adjudication().session.game.state.hands  # type: ignore[attr-defined]
        orders = {s: f"discard {hands[s][0]}\nplay {hands[s][1]}" for s in Side}
        assert st.receive(signed(keys, P, 1, orders[P])).verdict is Verdict.ACCEPTED  # the old player's, stands
    r = run.invoke(main, ["--home", str(home), "replace", "g", "--side", "Pompey", "--email", "cato@example.org",
                          "--key", str(tmp_path / "cato.pub")])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("g: Pompey is now played by cato@example.org (submission #2, the moderator's)")
    with Home(home).open("g") as st:
        old = st.receive(signed(keys, P, 1, orders[P], n=9))
        assert old.verdict is Verdict.REJECTED and "signed with another key" in old.reason
        assert st.status().received == ("Pompey",)  # his sealed orders of this step still stand
        assert st.receive(signed(sub_keys, P, 1, orders[P], n=3)).verdict is Verdict.ACCEPTED
        assert st.receive(signed(keys, C, 1, orders[C])).resolved
        assert "The moderator gives Pompey to a substitute player" in (st.report("Caesar").body or "")
        assert {p.side: p.email for p in st.players()}["Pompey"] == "cato@example.org"
        assert st.verify().ok  # submission #1 is still checked against the key it was signed with
    r = run.invoke(main, ["--home", str(home), "audit", "export", "g", "-o", str(tmp_path / "g.json")])
    assert r.exit_code == 0
    r = run.invoke(main, ["--home", str(home), "audit", "check", str(tmp_path / "g.json")])
    assert r.exit_code == 0, r.output
    # then to a password player; a wrong or doubled credential is refused
    r = run.invoke(main, ["--home", str(home), "replace", "g", "--side", "Pompey", "--email", "dio@example.org",
                          "--password", "dio's secret"])
    assert r.exit_code == 0, r.output
    r = run.invoke(main, ["--home", str(home), "replace", "g", "--side", "Pompey", "--email", "x@example.org"])
    assert r.exit_code == 2 and "exactly one credential" in r.output
    (tmp_path / "caesar.pub").write_text(keys[C].public_text)
    r = run.invoke(main, ["--home", str(home), "replace", "g", "--side", "Pompey", "--email", "x@example.org",
                          "--key", str(tmp_path / "caesar.pub")])
    assert r.exit_code == 1 and "Caesar has this public key" in r.output
    with Home(home).open("g") as st:
        step = st.status().step
        env = new_envelope("g", "Pompey", step, "resign")
        assert st.receive(password_submission(env, "dio's secret").to_armor().encode()).verdict is Verdict.ACCEPTED
        assert st.status().summary.winner == "Caesar"
        assert st.verify().ok
    db = sqlite3.connect(home / "g.db")
    raw = db.execute("SELECT raw FROM submission WHERE id = 2").fetchone()[0]
    db.execute("UPDATE submission SET raw = ? WHERE id = 2", (raw.replace(b'"old_key":"pbem', b'"old_key":"xbem'),))
    db.commit()
    db.close()
    r = run.invoke(main, ["--home", str(home), "verify", "--game", "g"])
    assert r.exit_code == 1 and "FAILED" in r.output


def test_away_until_a_date_moves_the_deadline_within_the_cap_and_the_opponent_is_told(tmp_path: Path) -> None:
    from datetime import datetime, timedelta

    from pbem import settings

    home = tmp_path / "home"
    now = [datetime(2025, 3, 1, 12, 0, tzinfo=UTC)]
    keys = make_game(home, "g", clock=lambda: now[0], deadline=timedelta(hours=72))
    h = Home(home, clock=lambda: now[0])
    with h.open("g") as st:
        hands = st.adjudication().session.game.state.hands  # type: ignore[attr-defined]
        assert st.receive(signed(keys, C, 1, f"discard {hands[C][0]}\nplay {hands[C][1]}")).verdict is Verdict.ACCEPTED
        bad = st.receive(signed(keys, C, 1, "away until 2025-03-10\nplay 3/2"))
        assert bad.verdict is Verdict.REJECTED and "stands alone" in bad.errors[0]["message"]
        bad = st.receive(signed(keys, C, 1, "away until next week"))
        assert bad.verdict is Verdict.REJECTED and "away until 2025-03-10" in bad.errors[0]["message"]
        r = st.receive(signed(keys, C, 1, "Away until 2025-03-10"))
        assert r.verdict is Verdict.ACCEPTED and not r.resolved
        s = st.status()
        assert s.deadline == "2025-03-10T00:00:00Z" and s.received == ("Caesar",)  # his orders still stand
        assert [e.text for _, _, e in st.events("Pompey")][-1] == (
            "Caesar is away until 2025-03-10T00:00:00Z: the deadlines wait for him, within the club's limit")
        settings.save(home, settings.Settings(away_cap=timedelta(days=2)))
        assert st.status().deadline == "2025-03-06T12:00:00Z"  # at most 2 days later than it was
        st.receive(signed(keys, C, 1, "away until 2025-03-05 18:00"))
        assert st.status().deadline == "2025-03-05T18:00:00Z"  # his latest word counts
        assert st.verify().ok
        now[0] = datetime(2025, 3, 5, 18, 0, tzinfo=UTC)
        assert st.tick()[0].startswith("step 1 resolved at its deadline (2025-03-05T18:00:00Z)")
        assert "Caesar is away until 2025-03-10" in (st.report("Pompey").body or "")
        assert st.status().deadline == "2025-03-08T18:00:00Z"  # the absence is over by the next deadline
        assert st.verify().ok


def test_orders_sent_after_away_until_leave_the_absence_standing(tmp_path: Path) -> None:
    """`away until DATE` and then the step's orders, in the same step: the orders do not replace the
    absence (it is not orders), so the deadline stays moved for that step and the next ones."""
    from datetime import datetime, timedelta

    home = tmp_path / "home"
    now = [datetime(2025, 3, 1, 12, 0, tzinfo=UTC)]
    keys = make_game(home, "g", clock=lambda: now[0], deadline=timedelta(hours=72))
    with Home(home, clock=lambda: now[0]).open("g") as st:
        hands = st.adjudication().session.game.state.hands  # type: ignore[attr-defined]
        assert st.receive(signed(keys, C, 1, "away until 2025-03-10")).verdict is Verdict.ACCEPTED
        assert st.status().deadline == "2025-03-10T00:00:00Z"
        r = st.receive(signed(keys, C, 1, f"discard {hands[C][0]}\nplay {hands[C][1]}"))
        assert r.verdict is Verdict.ACCEPTED and r.related is None  # it replaced nothing
        assert st.status().deadline == "2025-03-10T00:00:00Z" and st.status().received == ("Caesar",)
        assert st.receive(signed(keys, P, 1, f"discard {hands[P][0]}\nplay {hands[P][1]}")).resolved
        assert st.status().step == 2 and st.status().deadline == "2025-03-10T00:00:00Z"  # still away
        assert st.verify().ok


def test_a_substitute_is_mailed_the_position_he_takes_over(tmp_path: Path) -> None:
    """After `pbem replace` the side's latest report goes again, to the substitute: without it he would
    not know the position, nor that the open step waits for him."""
    import email
    from email import policy

    home = tmp_path / "home"
    keys = make_game(home, "g")
    (tmp_path / "cato.pub").write_text(generate_keypair().public_text + "\n")
    run = CliRunner()

    def send(out: str) -> list[tuple[str, str]]:
        r = run.invoke(main, ["--home", str(home), "send", "--from", "club@example.org", "--smtp", "127.0.0.1:1",
                              "--dry-run", str(tmp_path / out)])
        assert r.exit_code == 0, r.output
        with Home(home).open("g") as st:  # a dry run marks nothing: mark what it wrote, as a server's acceptance would
            st.mark_sent([r.id or 0 for r in st.outbox(kind=None, unsent=True)])
        mails = [email.message_from_bytes(f.read_bytes(), policy=policy.default) for f in (tmp_path / out).rglob("*.eml")]
        return sorted((str(m["To"]), str(m["Subject"])) for m in mails)

    assert [to for to, _ in send("first")] == ["caesar@example.org", "pompey@example.org"]
    with Home(home).open("g") as st:
        st.receive(signed(keys, C, 1, "away until 2099-01-01"))  # something to render: no step resolves
    assert send("nothing") == []
    r = run.invoke(main, ["--home", str(home), "replace", "g", "--side", "Pompey", "--email", "cato@example.org",
                          "--key", str(tmp_path / "cato.pub")])
    assert r.exit_code == 0, r.output
    assert send("again") == [("cato@example.org", "[g] step 1: Year 705 starts: discard 1 card and play 1 card")]
    with Home(home).open("g") as st:
        assert st.verify().ok


def test_a_resignation_with_a_battle_pending_leaves_a_readable_finished_game(tmp_path: Path) -> None:
    """Resigning (or a forfeit) between a move into an enemy's location and its battle: the finished
    game keeps both sides there, and its file still loads (it was refused as inconsistent: every
    command on the game failed, and the tournament could not record the result)."""
    from pbem.core.rng import Rng
    from pbem.games.caesar.rules.autoplay import random_orders

    home = tmp_path / "home"
    keys = make_game(home, "g")
    rng = Rng(5)
    with Home(home).open("g") as st:
        for n in range(200):
            session = st.adjudication().session  # type: ignore[attr-defined]
            if session.game.contested_locations() and session.step().kind.value == "command":
                break
            step = session.step()
            side = next(x for x in step.awaiting if x.value not in st.status().received)
            assert st.receive(signed(keys, side, step.number, random_orders(session, side, rng), n=n)).verdict \
                is Verdict.ACCEPTED
        else:
            pytest.fail("no battle pending at a command step in 200 submissions")
        contested = session.game.contested_locations()
        loser = session.step().awaiting[0]
        assert st.receive(signed(keys, loser, session.step().number, "resign")).resolved
    with Home(home).open("g") as st:
        s = st.status()
        assert s.over and s.result.startswith(f"{'Caesar' if loser is P else 'Pompey'} wins: {loser.value} resigned")
        assert st.adjudication().session.game.contested_locations() == contested  # type: ignore[attr-defined]
        assert st.verify().ok
