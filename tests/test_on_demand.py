"""Reports mailed to no one are kept without a body and rendered when asked for.

A step that asks nothing of a player who folds such steps into his next mail, and every report to
a recipient without an address, is queued as ``records.ON_DEMAND``: the same row (step, recipient,
the events it covers), no text. Asked for, it is rendered from the stored game, byte for byte what
rendering it when queued gives; once it leaves pbem (``pbem report`` prints it, ``pbem send`` mails
it after all) it is stored. Recovery does not take it for unfinished work.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from pbem.queries import needs_the_store
from pbem.records import ON_DEMAND
from pbem.store import Home
from pbem.transport.outbox import DryRunTransport, send_outbox
from store_helpers import play, query
from test_mail import EMAILS, make_games

SENDER = "Club PBEM <pbem@club.example>"
GID = "h"  # both players have an address, the moderator has none


@pytest.fixture()
def played(tmp_path: Path) -> tuple[Path, dict]:
    """Game ``h``, played to step 10."""
    home = tmp_path / "home"
    keys = make_games(home, GID)[GID]
    play(home, GID, keys, lambda st: st.status().step >= 10)
    return home, keys


def rows_of(home: Path) -> list[tuple[Any, ...]]:
    return query(home / f"{GID}.db", "SELECT id, step, recipient, format, body, renderer FROM outbox "
                                     "WHERE kind = 'report' ORDER BY id")


def test_only_the_reports_that_go_to_someone_are_rendered_when_queued(played: tuple[Path, dict]) -> None:
    home, _ = played
    assert EMAILS[GID]["Caesar"] and EMAILS[GID]["Pompey"] and not EMAILS[GID]["moderator"]
    with Home(home).open(GID) as st:
        asks = st.asks(range(1, st.status().step + 1))
        assert st.folding() == {"Caesar": True, "Pompey": True}
    for _id, step, recipient, _fmt, body, renderer in rows_of(home):
        awaiting, over = asks[step]
        mailed = recipient != "moderator" and (over or recipient in awaiting)
        assert (body is not None) == mailed, (step, recipient)
        assert (renderer == ON_DEMAND) == (not mailed)
    held = {(step, r) for _i, step, r, _f, body, _ in rows_of(home) if body is None and r != "moderator"}
    assert held, "a game of ten steps has steps that ask one side nothing"
    with sqlite3.connect(home / f"{GID}.db") as conn:  # nothing left for recovery: the plain paths stay open
        assert not needs_the_store(conn, GID)
    with Home(home).open(GID) as st:
        assert st.render_pending() == 0


def test_a_report_shown_is_the_one_rendered_for_reading_and_is_then_stored(played: tuple[Path, dict]) -> None:
    home, _ = played
    before = rows_of(home)
    kept = [(i, step, r, f) for i, step, r, f, body, _ in before if body is None]
    with Home(home).open(GID) as st:
        shown = {row.id: row.body for row in st.with_bodies(st.outbox())}
    assert rows_of(home) == before  # rendered for reading: nothing written
    with Home(home).open(GID) as st:  # `pbem report`: the report leaves pbem, so it is stored
        asked = {(step, r, f): st.report(r, f, step).body for _i, step, r, f in kept}
    assert all(asked.values()) and [asked[(s, r, f)] for i, s, r, f in kept] == [shown[i] for i, *_ in kept]
    from pbem.bodies import unpack

    now = {(step, r, f): unpack(body) for _i, step, r, f, body, renderer in rows_of(home) if (step, r, f) in asked}
    assert now == asked and not [row for row in rows_of(home) if row[4] is None]
    with Home(home).open(GID) as st:
        assert st.verify().ok and st.verify().reports == len(before)

def test_a_report_kept_on_demand_is_what_recovery_would_have_rendered(played: tuple[Path, dict]) -> None:
    home, _ = played
    kept = [i for i, _s, _r, _f, body, _ in rows_of(home) if body is None]
    with Home(home).open(GID) as st:
        shown = {row.id: row.body for row in st.with_bodies(st.outbox()) if row.id in kept}
    # The same rows made unfinished work instead: recovery renders them, and stores the same bytes.
    with sqlite3.connect(home / f"{GID}.db") as conn:
        conn.execute("UPDATE outbox SET renderer = NULL WHERE renderer = ?", (ON_DEMAND,))
    with Home(home).open(GID) as st:  # opening recovers
        stored = {row.id: row.body for row in st.outbox() if row.id in kept}
        assert st.verify().ok
    assert stored == shown and len(shown) == len(kept) > 0


def test_verify_compares_the_stored_reports_and_says_how_many_were_mailed_to_no_one(played: tuple[Path, dict]) -> None:
    home, _ = played
    kept = sum(1 for *_, body, _r in rows_of(home) if body is None)
    with Home(home).open(GID) as st:
        report = st.verify()
    assert report.ok and report.reports == len(rows_of(home)) - kept
    assert report.on_demand == kept and report.checked().endswith(f"({kept} more mailed to no one: made when asked for)")
    with sqlite3.connect(home / f"{GID}.db") as conn:  # a stored report changed by hand is still caught
        (a, b) = conn.execute("SELECT id FROM outbox WHERE body IS NOT NULL AND format = 'text' AND kind = 'report' "
                              "ORDER BY id LIMIT 2").fetchall()
        conn.execute("UPDATE outbox SET body = (SELECT body FROM outbox WHERE id = ?) WHERE id = ?", (b[0], a[0]))
    with Home(home).open(GID) as st:
        assert not st.verify().ok


def test_a_held_report_mailed_after_all_is_rendered_then_and_stored(played: tuple[Path, dict], tmp_path: Path) -> None:
    home, _ = played
    out = tmp_path / "out"
    held = sorted({step for _i, step, r, _f, body, _ in rows_of(home) if r == "Caesar" and body is None})
    with Home(home).open(GID) as st:
        expected = {row.step: row.body for row in st.with_bodies(st.outbox(recipient="Caesar", fmt="text"))
                    if row.step in held}  # rendered for reading: nothing stored
        st.set_folding("Caesar", False)  # he stops folding: every step's report is a mail of its own
    dry, failure = send_outbox(Home(home), DryRunTransport(tmp_path / "dry"), SENDER, game=GID, mark=False)
    assert not failure and {r.step for r in dry if r.recipient == "Caesar" and r.status == "written"} >= set(held)
    assert len([r for r in rows_of(home) if r[2] == "Caesar" and r[4] is None]) == 2 * len(held), "a dry run stores nothing"
    results, failure = send_outbox(Home(home), DryRunTransport(out), SENDER, game=GID)
    assert not failure
    assert {r.step for r in results if r.recipient == "Caesar" and r.status == "sent"} >= set(held)
    assert not [r for r in rows_of(home) if r[2] == "Caesar" and r[4] is None]  # stored with the mark
    with Home(home).open(GID) as st:
        assert {s: st.report("Caesar", "text", s).body for s in held} == expected
        assert all(r.sent for r in st.outbox(recipient="Caesar"))
        assert st.verify().ok
    # and the moderator, without an address, still has nothing rendered
    assert all(body is None for _i, _s, r, _f, body, _ in rows_of(home) if r == "moderator")


def test_a_report_handed_out_by_pbem_report_is_genuine_in_the_audit_bundle(tmp_path: Path) -> None:
    """Play without mail (no addresses: every report is kept on demand): the reports the moderator
    prints with `pbem report` and hands out are stored then, so `pbem audit check --report` knows them."""
    from pbem.decide import canonical_json
    from test_fairness import audit_check

    home = tmp_path / "home"
    keys = make_games(home, "nomail")["nomail"]
    play(home, "nomail", keys, lambda st: st.status().step >= 6)
    with sqlite3.connect(home / "nomail.db") as conn:
        assert conn.execute("SELECT COUNT(*) FROM outbox WHERE kind = 'report' AND body IS NOT NULL").fetchone() == (0,)
    with Home(home).open("nomail") as st:
        handed = st.report("Caesar", "text", 3).body or ""
        bundle = canonical_json(st.audit_bundle(include_secret=True))
    code, out = audit_check(bundle, handed)
    assert code == 0 and "this report is genuine, step 3 (text report for Caesar)" in out, out
    assert re.search(r"nomail: OK: .*, 1 reports checked \(\d+ more mailed to no one", out), out  # the one handed out
