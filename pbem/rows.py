"""A game file's rows as plain dataclasses, read through the standard library's ``sqlite3``: what the
audit replays (:func:`pbem.audit.verify`) and an audit bundle holds (:mod:`pbem.bundle`).

The columns are those of :mod:`pbem.tables` (the SQLModel classes that create and write the file);
``tests/test_rows.py`` holds the two to the same names. Reading a whole game this way needs no ORM,
so ``pbem verify`` of a file with no unfinished work starts without loading SQLModel, SQLAlchemy
and pydantic (:func:`read_game`), and :meth:`pbem.store.Store.verify` reads the same rows the
same way on its own connection.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, fields
from typing import Any, TypeVar

from pbem import bodies
from pbem.bodies import DamagedBodyError
from pbem.records import LEGACY_SYSTEM, SCHEMA, Verdict

__all__ = [
    "EventRow",
    "GameRow",
    "GameRows",
    "OutboxRow",
    "PlayerRow",
    "SnapshotRow",
    "SubmissionRow",
    "damaged_bodies",
    "read_game",
    "read_outbox",
    "read_rows",
]


@dataclass
class GameRow:
    id: str
    seed: int
    options: str
    settings: str
    created: str
    header_hash: str
    schema_version: str = SCHEMA
    system: str = LEGACY_SYSTEM
    scenario: str | None = None
    deadline_seconds: int | None = None
    moderator_email: str = ""
    commitment: str | None = None
    secret: str | None = None


@dataclass
class PlayerRow:
    side: str
    email: str = ""
    public_key: str | None = None
    password_hash: str | None = None
    fingerprint: str | None = None
    language: str = "en"


@dataclass
class SubmissionRow:
    raw: bytes
    received: str
    id: int | None = None
    password_check: str | None = None
    source: str = ""
    side: str | None = None
    step: int | None = None
    digest: str | None = None
    verdict: str = Verdict.RECEIVED.value
    reason: str | None = None
    errors: str | None = None
    applied_step: int | None = None
    orders: str | None = None
    related: int | None = None
    processed: str | None = None


@dataclass
class EventRow:
    seq: int
    step: int
    audience: str
    kind: str
    text: str
    data: str
    prev_hash: str
    hash: str


@dataclass
class SnapshotRow:
    step: int
    session: str
    hash: str
    last_event: int
    cause: str
    created: str
    submission_id: int | None = None
    after_submission: int = 0
    deadline: str | None = None


@dataclass
class OutboxRow:
    step: int
    recipient: str
    format: str
    subject: str
    created: str
    id: int | None = None
    kind: str = "report"
    email: str = ""
    body: str | None = None  # read back from its compressed form (pbem.bodies)
    since_event: int = 0
    upto_event: int = 0
    sent: str | None = None
    submission_id: int | None = None
    renderer: str | None = None
    language: str = "en"


@dataclass
class GameRows:
    """Everything the audit reads of one game file."""

    game: GameRow
    players: dict[str, PlayerRow]
    subs: list[SubmissionRow]
    events: list[EventRow]
    snaps: dict[int, SnapshotRow]
    reports: list[OutboxRow]  # the reports (not reminders or replies), in id order


_Row = TypeVar("_Row")


def read_rows(conn: sqlite3.Connection, cls: type[_Row], table: str, tail: str = "", params: tuple[Any, ...] = ()) -> list[_Row]:
    """Every row of ``table`` as ``cls``: the columns the file has of ``cls``'s fields (an older file
    lacks some; their defaults stand)."""
    have = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
    if not have:  # (said as SQLite says it when a query names it)
        raise sqlite3.OperationalError(f"no such table: {table}")
    names = [f.name for f in fields(cls) if f.name in have]  # type: ignore[arg-type]
    cur = conn.execute(f"SELECT {', '.join(names)} FROM {table} {tail}", params)
    return [cls(**dict(zip(names, r, strict=True))) for r in cur]


def read_outbox(conn: sqlite3.Connection, tail: str = "", params: tuple[Any, ...] = ()) -> list[OutboxRow]:
    """The outbox's rows (:func:`read_rows`), each body read back from its stored form (pbem.bodies), as
    the ORM's column reads it. A body that cannot be read raises :class:`~pbem.bodies.DamagedBodyError`."""
    rows = read_rows(conn, OutboxRow, "outbox", tail, params)
    for r in rows:
        r.body = None if r.body is None else bodies.unpack(r.body)
    return rows


def read_game(conn: sqlite3.Connection) -> GameRows:
    """One game file's rows, in one read transaction of ``conn`` (a connection to the file). A report
    body that cannot be read raises :class:`~pbem.bodies.DamagedBodyError` (:func:`damaged_bodies`
    names them all)."""
    started = not conn.in_transaction
    if started:
        conn.execute("BEGIN")
    try:
        games = read_rows(conn, GameRow, "game")
        if len(games) != 1:
            raise ValueError(f"the game table has {len(games)} rows, not one")
        reports = read_outbox(conn, "WHERE kind = ? ORDER BY id", ("report",))
        return GameRows(
            games[0],
            {p.side: p for p in read_rows(conn, PlayerRow, "player")},
            read_rows(conn, SubmissionRow, "submission", "ORDER BY id"),
            read_rows(conn, EventRow, "event", "ORDER BY seq"),
            {s.step: s for s in read_rows(conn, SnapshotRow, "snapshot", "ORDER BY step")},
            reports,
        )
    finally:
        if started:
            conn.execute("COMMIT")


def damaged_bodies(conn: sqlite3.Connection) -> list[str]:
    """Each stored report body that cannot be read back, as a problem line of the audit."""
    out = []
    for step, recipient, fmt, body in conn.execute(
            "SELECT step, recipient, format, body FROM outbox WHERE kind = 'report' AND body IS NOT NULL ORDER BY id"):
        try:
            bodies.unpack(body)
        except DamagedBodyError as exc:
            out.append(f"step {step}: the stored {fmt} report for {recipient} cannot be read: {exc}")
    return out
