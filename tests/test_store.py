"""The store and its pipeline: verdicts, revisions and resends, deadlines, verify,
crash safety (processes killed at each point of a resolution) and concurrency."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from datetime import timedelta
from pathlib import Path

import pytest

from pbem.envelope import hash_password, new_envelope, password_submission
from pbem.errors import CredentialError
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.steps.session import Session
from pbem.store import GameSetup, Home, PlayerSetup, StoreError, Verdict, parse_duration, parse_time
from store_helpers import dump, make_game, signed, start_cli

C, P = Side.CAESAR, Side.POMPEY


def cards(session: Session, side: Side, k: int = 0) -> str:
    """A legal year-start submission; ``k`` picks a different play."""
    hand = sorted(set(c for c in session.game.state.hands[side] if "/" in c))
    discard = hand[0]
    play = hand[1 + k % (len(hand) - 1)]
    return f"discard {discard}\nplay {play}\n"


def test_revision_resend_rejections_and_resolution(tmp_path: Path) -> None:
    keys = make_game(tmp_path)
    st = Home(tmp_path).open("g")
    s = st.adjudication().session
    assert len(st.outbox()) == 6  # the opening reports: 3 recipients x text/html
    first = st.receive(signed(keys, C, 1, cards(s, C, 0)))
    assert (first.verdict, first.waiting_for, first.resolved) == (Verdict.ACCEPTED, ("Pompey",), False)
    revised_raw = signed(keys, C, 1, cards(s, C, 1))
    revised = st.receive(revised_raw)
    assert revised.verdict is Verdict.ACCEPTED and revised.related == first.submission
    again = st.receive(revised_raw)
    assert (again.verdict, again.related) == (Verdict.DUPLICATE, revised.submission)
    early = st.receive(signed(keys, P, 2, "pass"))
    assert early.verdict is Verdict.REJECTED and "step 2 is not open yet" in early.reason
    forged = json.loads(signed(keys, P, 1, cards(s, P)))
    forged["orders"][1] = "play 3/1" if forged["orders"][1] != "play 3/1" else "play 2/2"
    bad_sig = st.receive(json.dumps(forged).encode())
    assert bad_sig.verdict is Verdict.REJECTED and "signature does not match" in bad_sig.reason
    stranger = st.receive(signed(keys, C, 1, "play 3/2").replace(b'"Caesar"', b'"Crassus"'))
    assert stranger.reason == CredentialError.MESSAGE
    junk = st.receive(b"hello")
    assert junk.verdict is Verdict.REJECTED and junk.side is None and junk.reason.startswith("cannot read")
    illegal = st.receive(signed(keys, P, 1, "discard 9/9\nplay Caesar\nmove Roma -> Genua: Legio 8\n"))
    assert illegal.verdict is Verdict.REJECTED and len(illegal.errors) == 3
    assert [e["line"] for e in illegal.errors] == [1, 2, 3]
    done = st.receive(signed(keys, P, 1, cards(s, P)))
    assert done.resolved and done.next_step == 2 and done.waiting_for == ()
    late = st.receive(signed(keys, C, 1, cards(s, C, 2)))
    assert late.verdict is Verdict.REJECTED and "already resolved" in late.reason
    verdicts = [r.verdict for r in st.submissions()]
    assert verdicts == ["superseded", "accepted", "duplicate"] + ["rejected"] * 5 + ["accepted", "rejected"]
    rows = st.outbox()
    assert sorted((r.step, r.recipient, r.format) for r in rows if r.step == 2) == sorted(
        (2, who, fmt) for who in ("Caesar", "Pompey", "moderator") for fmt in ("text", "html"))
    assert all(r.body for r in st.with_bodies(rows))  # rendered when queued, or on demand now
    # the revision counted: Caesar played the revised card
    played = [e.text for _, _, e in st.events("Caesar") if e.kind == "reveal"]
    assert cards(s, C, 1).split("\n")[1].split()[1] in played[0]
    assert st.verify().ok
    st.close()


def test_sealed_orders_stay_hidden_until_the_step_resolves(tmp_path: Path) -> None:
    keys = make_game(tmp_path)
    st = Home(tmp_path).open("g")
    before = {r.id for r in st.outbox()}
    seen = st.events("Pompey")
    assert [e.kind for _, _, e in seen] == ["year", "deal"]  # the opening deal, his own hand only
    st.receive(signed(keys, C, 1, cards(st.adjudication().session, C)))
    assert {r.id for r in st.outbox()} == before  # nothing sent on a sealed acceptance
    assert st.events("Pompey") == seen
    st.close()


def test_password_mode_gives_one_message_for_unknown_and_wrong(tmp_path: Path) -> None:
    home = Home(tmp_path)
    players = (PlayerSetup(C, "c@x", password_hash=hash_password("right horse")),
               PlayerSetup(P, "p@x", password_hash=hash_password("other horse")))
    st = home.create(GameSetup("pw", players, seed=3))
    text = cards(st.adjudication().session, C)

    def sub(side: str, pw: str, n: int) -> bytes:
        env = new_envelope("pw", side, 1, text, nonce=f"{n:032x}", time="2025-03-01T12:00:00Z")
        return password_submission(env, pw).to_armor().encode()

    wrong = st.receive(sub("Caesar", "wrong horse", 1))
    unknown = st.receive(sub("Crassus", "right horse", 2))
    assert wrong.reason == unknown.reason == CredentialError.MESSAGE
    assert st.receive(sub("Caesar", "right horse", 3)).verdict is Verdict.ACCEPTED
    con = sqlite3.connect(st.path)
    assert con.execute("SELECT password_hash FROM player WHERE side='Caesar'").fetchone()[0].startswith("scrypt$")
    con.close()
    st.close()


def test_deadline_reminders_then_defaults(tmp_path: Path) -> None:
    start = parse_time("2025-03-01T12:00:00Z")
    home = Home(tmp_path, clock=lambda: start)
    keys = make_game(tmp_path, deadline=parse_duration("72h"), clock=lambda: start)
    st = home.open("g")
    assert st.status().deadline == "2025-03-04T12:00:00Z"
    st.receive(signed(keys, C, 1, cards(st.adjudication().session, C)))
    assert st.tick(start + timedelta(hours=10)) == []
    done = st.tick(start + timedelta(hours=60))
    assert done == ["reminder queued for Pompey (step 1, due 2025-03-04T12:00:00Z)"]
    assert st.tick(start + timedelta(hours=61)) == []  # once only
    reminder = st.outbox(kind="reminder")
    assert [(r.recipient, r.format) for r in reminder] == [("Pompey", "text")] and "deadline" in (reminder[0].body or "")
    assert st.status(start + timedelta(hours=73)).overdue
    done = st.tick(start + timedelta(hours=73))
    assert done == ["step 1 resolved at its deadline (2025-03-04T12:00:00Z); defaults for Pompey"]
    status = st.status(start + timedelta(hours=73))
    assert status.step == 2 and status.deadline == "2025-03-07T13:00:00Z"
    kinds = [e.kind for _, _, e in st.events("Pompey")]
    assert "deadline" in kinds and "default" in kinds
    assert st.verify().ok
    st.close()


def test_scenario_games_replay_from_their_position(tmp_path: Path) -> None:
    pytest.importorskip("pbem.games.caesar.rules.scenario")
    from pbem.games.caesar.rules.scenario import build_game

    game = build_game({"year": 705, "turn": 2, "seed": 11,
                       "blocks": {"Caesar": {"Massilia": ["Legio 11", "Caesar"]},
                                  "Pompey": {"Tarraco": ["Legio 5", "Pompey"]}},
                       "hands": {"Caesar": ["3/2", "2/2", "1/3", "2/1"], "Pompey": ["3/1", "2/2", "1/2", "2/3"]}})
    keys = make_game(tmp_path, game_id="sc", scenario=game.to_json())
    st = Home(tmp_path).open("sc")
    assert st.game().scenario and json.loads(st.game().scenario)["rng"]["seed"] == 11
    st.receive(signed(keys, C, 1, "play 3/2", game="sc"))
    r = st.receive(signed(keys, P, 1, "play 3/1", game="sc"))
    assert r.resolved, r
    assert st.verify().ok
    st.close()


def test_unknown_game_and_bad_ids(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no game 'nope'"):
        Home(tmp_path).open("nope")
    with pytest.raises(StoreError, match="not a usable game id"):
        make_game(tmp_path, game_id="../x")
    make_game(tmp_path)
    with pytest.raises(StoreError, match="already exists"):
        make_game(tmp_path)
    with pytest.raises(StoreError, match="cannot tell which game"):
        Home(tmp_path).receive(b"not a submission")


# ---- crashes and races (subprocesses) ---------------------------------------------------------

POINTS = ["received", "before-commit", "after-commit", "rendered"]


def test_a_crash_at_any_point_loses_nothing_and_rerunning_finishes_once(tmp_path: Path) -> None:
    """Kill `pbem submit` at each named point of the resolution of step 1; any later
    command finishes the work; the game file equals that of an uninterrupted run."""
    ref = tmp_path / "ref"
    keys = make_game(ref)
    s = Home(ref).open("g").adjudication().session
    caesar, pompey = tmp_path / "c.json", tmp_path / "p.json"
    caesar.write_bytes(signed(keys, C, 1, cards(s, C)))
    pompey.write_bytes(signed(keys, P, 1, cards(s, P)))
    Home(ref).receive(caesar.read_bytes())
    homes = {}
    for point in POINTS:
        homes[point] = tmp_path / point
        homes[point].mkdir()
        shutil.copyfile(ref / "g.db", homes[point] / "g.db")
    runs = {p: start_cli(["--home", str(h), "submit", str(pompey)], crash_at=p) for p, h in homes.items()}
    assert Home(ref).receive(pompey.read_bytes()).resolved  # the uninterrupted run
    outcome = {p: proc.communicate(timeout=60) for p, proc in runs.items()}
    assert {p: proc.returncode for p, proc in runs.items()} == {p: 77 for p in POINTS}, outcome
    expected = dump(ref / "g.db")
    for point, home in homes.items():
        assert dump(home / "g.db") != expected, f"the crash at {point} happened after all the work"
    rerun = start_cli(["--home", str(homes["before-commit"]), "status"])  # any command finishes the work
    out, err = rerun.communicate(timeout=60)
    assert rerun.returncode == 0 and out.decode().startswith("g: step 2,"), err
    for point, home in homes.items():
        Home(home).open("g").close()  # the same recovery, in this process
        got = dump(home / "g.db")
        assert got == expected, f"after a crash at {point} the rerun differs"
        steps = [(r[0], r[2], r[3]) for r in got["outbox"]]
        assert len(steps) == len(set(steps)) == 12  # one copy of each report
        again = Home(home).receive(pompey.read_bytes())
        assert again.verdict is Verdict.DUPLICATE  # the crashed submission was not lost


def test_parallel_submissions_resolve_the_step_once(tmp_path: Path) -> None:
    keys = make_game(tmp_path)
    s = Home(tmp_path).open("g").adjudication().session
    files = []
    for i in range(2):
        for side in (C, P):
            f = tmp_path / f"{side.value}-{i}.json"
            f.write_bytes(signed(keys, side, 1, cards(s, side, i), n=i))
            files.append(f)
    files.append(files[0])  # and one exact resend racing with its original
    flag = tmp_path / "go"
    procs = [start_cli(["--home", str(tmp_path), "submit", str(f)], wait_for=flag) for f in files]
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("go.*.ready"))) < len(procs) and time.monotonic() < deadline:
        time.sleep(0.01)
    flag.write_text("go")
    outputs = [p.communicate(timeout=90) for p in procs]
    results = [(p.returncode, out.decode(), err.decode()) for p, (out, err) in zip(procs, outputs)]
    assert all(code in (0, 1) for code, _, _ in results), results
    assert not any("locked" in err or "Traceback" in err for _, _, err in results), results
    with Home(tmp_path).open("g") as st:
        subs = st.submissions()
        assert len(subs) == len(files) and not [x for x in subs if x.verdict == "received"]
        con = sqlite3.connect(st.path)
        assert con.execute("SELECT step, cause FROM snapshot ORDER BY step").fetchall() == [
            (1, "new"), (2, "submission")]
        assert con.execute("SELECT COUNT(*) FROM outbox WHERE step = 2").fetchone()[0] == 6
        con.close()
        accepted = [x for x in subs if x.verdict == "accepted"]
        assert sorted(str(x.side) for x in accepted) == ["Caesar", "Pompey"]
        assert st.verify().ok


def test_a_file_of_the_earlier_format_gets_its_columns_once_and_opens(tmp_path: Path) -> None:
    """A game file of format 2 (no game system, commitment or secret; no report renderer, no language,
    no password check) gets those columns when it is first opened; opening it again changes nothing."""
    make_game(tmp_path)
    db = sqlite3.connect(tmp_path / "g.db")
    dropped = {"game": ["system", "commitment", "secret"], "outbox": ["renderer", "language"],
               "player": ["language"], "submission": ["password_check"]}
    for table, columns in dropped.items():
        for column in columns:
            db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    db.execute("UPDATE game SET schema_version = 'pbem-store 2'")
    db.commit()
    db.close()

    def columns() -> dict[str, set[str]]:
        con = sqlite3.connect(tmp_path / "g.db")
        try:
            return {t: {r[1] for r in con.execute(f"PRAGMA table_info({t})")} for t in dropped}
        finally:
            con.close()

    assert not any(c in columns()[t] for t, cs in dropped.items() for c in cs)
    with Home(tmp_path).open("g") as st:
        assert st.status().step == 1 and {p.language for p in st.players()} == {"en"}
    after = columns()
    assert all(c in after[t] for t, cs in dropped.items() for c in cs)
    Home(tmp_path).open("g").close()
    assert columns() == after
