"""The plain rows (pbem.rows) against the ORM tables, and ``pbem verify`` read plain (pbem.audit.verify_file):
the same verdicts as the store's verify, no ORM loaded, and the store's way for a file with work left."""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pbem import rows, tables
from pbem.audit import VerifyReport, verify_file
from pbem.games.caesar.rules.board import Side
from pbem.store import Home
from store_helpers import cli_env, make_game, run_pbem, signed

C, P = Side.CAESAR, Side.POMPEY

PAIRS = [(rows.GameRow, tables.GameRecord), (rows.PlayerRow, tables.PlayerRecord),
         (rows.SubmissionRow, tables.SubmissionRecord), (rows.EventRow, tables.EventRecord),
         (rows.SnapshotRow, tables.SnapshotRecord), (rows.OutboxRow, tables.OutboxRecord)]


@pytest.mark.parametrize(("row", "record"), PAIRS, ids=[r.__name__ for r, _ in PAIRS])
def test_each_plain_row_has_the_columns_of_its_table(row: type, record: type) -> None:
    columns = {c.name for c in record.__table__.columns}  # type: ignore[attr-defined]
    assert {f.name for f in dataclasses.fields(row)} == columns


def test_the_message_table_made_plain_is_the_one_sqlmodel_makes(tmp_path: Path) -> None:
    """A file made before the ``message`` table gets it with plain SQL (pbem.store.MESSAGE_TABLE, the pipeline
    loads no SQLModel): the very table and index SQLModel makes of :class:`pbem.tables.MessageRecord`."""
    from sqlmodel import SQLModel, create_engine

    from pbem.store import MESSAGE_TABLE

    engine = create_engine(f"sqlite:///{tmp_path / 'orm.db'}")
    SQLModel.metadata.create_all(engine, tables=[tables.MessageRecord.__table__])  # type: ignore[attr-defined]
    engine.dispose()
    plain = sqlite3.connect(tmp_path / "plain.db")
    for statement in MESSAGE_TABLE:
        plain.execute(statement)
    plain.commit()

    def schema(path: Path) -> list[tuple[str, str, str]]:
        with sqlite3.connect(path) as conn:
            return sorted(conn.execute("SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'message'"))

    assert schema(tmp_path / "plain.db") == schema(tmp_path / "orm.db")


def _played(home: Path) -> None:
    keys = make_game(home)
    with Home(home).open("g") as st:
        hands = st.adjudication().session.game.state.hands
    for side in (C, P):
        hand = sorted(c for c in hands[side] if "/" in c)
        Home(home).receive(signed(keys, side, 1, f"discard {hand[0]}\nplay {hand[1]}\n"))


def _both(home: Path) -> tuple[VerifyReport, VerifyReport]:
    """The plain verify and the store's, of the same file."""
    plain = verify_file(home / "g.db", "g", jobs=1)
    assert plain is not None
    with Home(home).open("g", recover=False) as st:
        return plain, st.verify(jobs=1)


#: the last report stored with its text (not one kept on demand: see test_on_demand.py)
LAST_STORED = "(SELECT MAX(id) FROM outbox WHERE kind = 'report' AND body IS NOT NULL)"


def test_verify_read_plain_finds_what_the_store_finds(tmp_path: Path) -> None:
    good = tmp_path / "good"
    _played(good)
    plain, whole = _both(good)
    assert plain.ok and plain == whole
    for name, change, said in (
        ("event", "UPDATE event SET text = text || '!' WHERE seq = 3", "does not match its hash"),
        ("unreadable", f"UPDATE outbox SET body = X'00010203' WHERE id = {LAST_STORED}", "cannot be read"),
        ("report", "UPDATE outbox SET body = (SELECT body FROM outbox WHERE id = (SELECT MIN(id) FROM outbox "
                   f"WHERE body IS NOT NULL)) WHERE id = {LAST_STORED}", "differs from a fresh rendering"),
    ):
        tampered = tmp_path / name
        shutil.copytree(good, tampered)
        con = sqlite3.connect(tampered / "g.db")
        con.execute(change)
        con.commit()
        con.close()
        plain, whole = _both(tampered)
        assert not plain.ok and plain == whole, name
        assert any(said in p for p in plain.problems), plain.problems


def test_verify_leaves_to_the_store_a_file_with_work_left(tmp_path: Path) -> None:
    _played(tmp_path)
    con = sqlite3.connect(tmp_path / "g.db")
    con.execute(f"UPDATE outbox SET body = NULL WHERE id = {LAST_STORED}")  # a crash before rendering
    con.commit()
    con.close()
    assert verify_file(tmp_path / "g.db", "g") is None
    assert verify_file(tmp_path / "g.db", "other") is None  # the file holds another game
    assert verify_file(tmp_path / "../g.db", "../g") is None
    done = run_pbem("--home", str(tmp_path), "verify")
    assert done.returncode == 0 and "g: OK" in done.stdout, done  # the store rendered it, then verified


def test_pbem_verify_of_a_finished_file_loads_no_orm(tmp_path: Path) -> None:
    _played(tmp_path)
    script = ("import sys\nfrom pbem.cli import main\n"
              "try:\n    main.main(args=sys.argv[1:], prog_name='pbem')\nexcept SystemExit:\n    pass\n"
              "print('loaded:', sorted(m for m in ('pbem.store', 'sqlmodel', 'sqlalchemy') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", script, "--home", str(tmp_path), "verify"], env=cli_env(),
                          capture_output=True, text=True, timeout=120)
    assert "g: OK: 2 steps" in done.stdout and "loaded: []" in done.stdout, done


def test_pbem_verify_starts_its_renderer_before_it_loads_the_envelope(tmp_path: Path) -> None:
    # the envelope (cryptography, the email package) is for the replay, which runs while the reports render
    _played(tmp_path)
    script = ("import sys\nimport pbem.audit as A\nfrom pbem.cli import main\nseen = []\nstart = A._ReportJob.start\n"
              "def spy(self, jobs):\n    seen.append(sorted(m for m in ('cryptography', 'pbem.envelope', 'email.parser')"
              " if m in sys.modules))\n    return start(self, jobs)\nA._ReportJob.start = spy\n"
              "try:\n    main.main(args=sys.argv[1:], prog_name='pbem')\nexcept SystemExit:\n    pass\n"
              "print('loaded when the renderer started:', seen[0])")
    done = subprocess.run([sys.executable, "-c", script, "--home", str(tmp_path), "verify"], env=cli_env(),
                          capture_output=True, text=True, timeout=120)
    assert "g: OK: 2 steps" in done.stdout and "loaded when the renderer started: []" in done.stdout, done


def test_a_file_of_the_previous_format_goes_the_store_s_way(tmp_path: Path) -> None:
    """An older format is migrated by the store when it opens the file: verify never reads it plain."""
    import gzip

    (tmp_path / "old.db").write_bytes(gzip.decompress((Path(__file__).parent / "data" / "legacy-store2.db.gz").read_bytes()))
    assert verify_file(tmp_path / "old.db", "old") is None
    done = run_pbem("--home", str(tmp_path), "verify")
    assert done.returncode == 0 and "old: OK: 2 steps" in done.stdout, done
