"""Storage and the step pipeline: one SQLite file per game, many games in a folder.

The tables (SQLModel) hold everything a game is made of, and nothing else:

* ``game``: id, the game system (:func:`pbem.games.find_game`), seed, the game's options, the
  custom starting position (if any), the deadline per step, and the hash that starts the event chain;
* ``player``: per side the email and the credential (public key text, or an
  scrypt password hash, never the password) with the key's fingerprint;
* ``submission``: every submission exactly as received (bytes), with its verdict;
* ``event``: the append-only event log, hash-chained;
* ``snapshot``: the whole adjudication state (the game's :class:`~pbem.core.game.Adjudication`
  as JSON) each time a step opens, with its hash and its deadline;
* ``outbox``: the reports (and reminders) to send, per step, recipient and format, and
  the replies to submissions that came by email (:mod:`pbem.replies`), one per submission.

The pipeline (:meth:`Store.receive`, :meth:`Store.receive_many`): the raw bytes are
stored first, in their own commit (with the identity of the mailbox message that carried
them, ``message``, when they came by mail: a message fed again is recognised there,
before anything is stored or queued); then each received submission is decided in one
``BEGIN IMMEDIATE`` transaction, lowest id first: parse, authenticate, recognise a resend,
check the addressing, check the orders, accept (a revision supersedes the side's earlier
submission) and, when the step resolves, append the events, write the new snapshot and
queue the reports with no body and the reply. One render pass then fills every report
whose body is missing, in one transaction. Every :class:`Store` finishes such unfinished
work when it is opened, so a crash at any point loses nothing and rerunning finishes the
work exactly once; two processes cannot both resolve a step because each decision
re-reads the state under SQLite's write lock.

Two ways in: the pipeline, the deadlines and whatever a submission's mail needs run in plain SQL on
the store's own ``sqlite3`` connection (:class:`pbem.sqlfile.PlainSession`; the rows as
:mod:`pbem.rows`), so ``pbem inbox``, ``pbem submit`` and ``pbem tick`` never load SQLAlchemy,
SQLModel or pydantic (most of a second of start-up); the commands that list or edit rows (the
outbox, the submissions, a new game) use the SQLModel classes of :mod:`pbem.tables` on an engine
made when first needed (:attr:`Store.engine`), which remain the schema's one definition.

Durability: the file is in WAL mode with ``synchronous=NORMAL``, so a commit costs no
fsync and a killed process loses no commit; :meth:`Store.sync` (one fsync of the WAL)
runs before anything is acknowledged (a receipt printed, a message marked handled), so
what was acknowledged also survives a power cut. A full disk or an I/O error is a
:class:`StorageError` that says what was committed; it never calls a healthy file damaged.

:meth:`Store.verify` reads everything stored and hands it to :mod:`pbem.audit`, which
replays every stored submission from the starting position through the same decision
function and checks each snapshot, each event and the hash chain, and each rendered
report byte for byte. That decision function, the report rendering, the hashes and
the time formats are pure and live in :mod:`pbem.decide`, shared by both.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import re
import secrets
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from email.headerregistry import HeaderRegistry
from email.utils import parseaddr
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

from pbem import bodies, moderator, queries
from pbem.control import OFFER_DRAW, OFFER_STEPS
from pbem.core.events import MODERATOR, Event
from pbem.core.game import Adjudication, GameSystem, Summary, option_values
from pbem.core.languages import requested_language
from pbem.core.mailing import requested_folding
from pbem.core.orders import order_lines
from pbem.core.rng import SECRET_BYTES, commitment_of
from pbem.decide import (  # noqa: F401 - format_duration and initial_adjudication are only re-exported
    LEGACY_SCHEMAS,
    Cause,
    Outcome,
    StoreError,
    Verdict,
    canonical_json,
    decide,
    event_hash,
    events_json,
    format_duration,
    format_time,
    game_options,
    game_secret,
    header_hash,
    initial_adjudication,
    known_state,
    loaded_state,
    parse_duration,
    parse_time,
    reminder_body,
    reminder_subject,
    render_report,
    renderer_of,
    report_subject,
    sha256_text,
    system_of,
)
from pbem.envelope import (
    PASSWORD_WRONG,
    SignedSubmission,
    check_password_of,
    key_fingerprint,
    parse_submission,
    submission_digest,
    without_password,
)
from pbem.errors import EnvelopeError, PbemError
from pbem.games import DEFAULT_GAME, find_game
from pbem.queries import BUSY_TIMEOUT_SECONDS
from pbem.records import (
    GAME_FILE_SUFFIX,
    GAME_ID_RE,
    ON_DEMAND,
    READABLE_SCHEMAS,
    RENDERING_OWED,
    SCHEMA,
    Receipt,
    games_in,
    kept_on_demand,
)
from pbem.replies import NOTICE, queue_mail, queue_reply
from pbem.rows import GameRow, OutboxRow, PlayerRow, SubmissionRow, read_game, read_outbox, read_rows

# The pipeline's pure part (deciding, rendering, hashes, times), shared with the audit, is in
# pbem.decide; the names defined here before the split stay importable from here.
from pbem.sqlfile import PlainSession, SqlFile, own_connection

if TYPE_CHECKING:
    from sqlmodel import Session as DbSession

    from pbem.audit import VerifyReport
    from pbem.tables import MessageRecord, SubmissionRecord

    #: A transaction the store's shared methods run in: a SQLModel session, or a plain one (pbem.sqlfile)
    Tx: TypeAlias = DbSession | PlainSession

#: The table classes (pbem.tables), importable from here as before; loaded with SQLModel when asked for
_TABLE_NAMES = ("EventRecord", "GameRecord", "MessageRecord", "OutboxRecord", "PlayerRecord", "SnapshotRecord",
                "SubmissionRecord")

__all__ = [
    "GameSetup",
    "Home",
    "MessageKey",
    "PlayerSetup",
    "Receipt",
    "Status",
    "StorageError",
    "Store",
    "StoreError",
    "Verdict",
    "VerifyReport",
    "parse_duration",
]



def __getattr__(name: str) -> Any:
    if name == "VerifyReport":  # importable from here, as before; pbem.audit is loaded when it is used
        from pbem.audit import VerifyReport

        return VerifyReport
    if name in _TABLE_NAMES:  # as before; SQLModel is loaded when one is used
        from pbem import tables

        return getattr(tables, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


FORMATS: tuple[str, ...] = ("text", "html")
GENESIS = "0" * 64
FREE_GUESSES = 3  # wrong passwords for a side in a row before its password submissions wait
THROTTLE_BASE = timedelta(minutes=1)  # the first wait; it doubles with each further wrong password
THROTTLE_MAX = timedelta(days=1)
_log = logging.getLogger("pbem")


#: (table, column) of every column :meth:`Store._migrate` adds to a game file of an earlier format
_COLUMNS_ADDED = (("player", "language"), ("outbox", "language"), ("game", "commitment"), ("game", "secret"),
                  ("outbox", "renderer"), ("game", "system"), ("submission", "password_check"))


def _checkpoint(name: str) -> None:
    """A named point of the pipeline; tests replace this to kill the process there."""


def _utcnow() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


@dataclass(frozen=True)
class PlayerSetup:
    side: str
    email: str = ""
    public_key: str | None = None  # "pbem-ed25519 ..." line
    password_hash: str | None = None  # from pbem.envelope.hash_password
    language: str = "en"  # of his reports and replies: a code of pbem.render.LANGUAGES

    def __post_init__(self) -> None:  # a game's str-valued Enum member is stored by its value
        object.__setattr__(self, "side", str(getattr(self.side, "value", self.side)))


@dataclass(frozen=True)
class GameSetup:
    game_id: str
    players: tuple[PlayerSetup, ...]
    seed: int | None = None  # None: a new secret keys every draw; a number: a practice game (predictable dice)
    system: str = DEFAULT_GAME
    options: dict[str, Any] = field(default_factory=dict)  # by the game's option names; defaults for the rest
    scenario: dict[str, Any] | None = None  # a custom starting position (GameSystem.load_position)
    deadline: timedelta | None = None
    moderator_email: str = ""


class StorageError(StoreError):
    """A write failed on a full disk, over a size limit, or with an I/O error: the game file
    is intact (SQLite rolled the unfinished change back). ``done``: what was committed."""

    def __init__(self, head: str, committed: str = "", done: Sequence[str] = (), *, io: bool = False) -> None:
        self.head, self.io, self.done = head, io, list(done)
        todo = ("Free some space (or check the disk), then run the command again: what is missing is done then"
                + ("; `pbem verify` checks the file" if io else ""))
        super().__init__(f"{head}. The game file is intact: SQLite rolled the unfinished change back (do not "
                         f"restore a backup: it would lose what is stored). {committed or 'Nothing committed was lost.'} "
                         f"{todo}.")

    def told(self, committed: str, done: Sequence[str] | None = None) -> StorageError:
        """The same failure, saying what was committed."""
        return StorageError(self.head, committed, self.done if done is None else done, io=self.io)


@dataclass(frozen=True)
class MessageKey:
    """The identity of a mailbox message: the SHA-256 of its bytes and its Message-ID."""

    digest: str
    message_id: str = ""


@dataclass(frozen=True)
class Status:
    game: str
    step: int
    kind: str
    title: str
    awaiting: tuple[str, ...]  # sides the step waits for
    received: tuple[str, ...]  # of those, sides whose (sealed) orders are in
    deadline: str | None
    overdue: bool
    over: bool
    summary: Summary
    paused: bool = False  # by the moderator (pbem pause): no deadline runs
    draw_offers: dict[str, int] = field(default_factory=dict)  # side -> the last step its standing offer holds for

    @property
    def result(self) -> str:
        return self.summary.result

    def __getattr__(self, name: str) -> Any:
        """The game's own facts of ``pbem status --json`` (Julius Caesar: ``year``, ``turn``)."""
        facts = self.__dict__.get("summary")
        if facts is not None and name in facts.facts:
            return facts.facts[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "step": self.step,
            "kind": self.kind,
            "title": self.title,
            "awaiting": list(self.awaiting),
            "received": list(self.received),
            "deadline": self.deadline,
            "overdue": self.overdue,
            "over": self.over,
            "paused": self.paused,
            "draw_offers": dict(self.draw_offers),
            **self.summary.facts,
            "score": dict(self.summary.score),
            "winner": self.summary.winner,
            "result": self.summary.result,
        }


# ---- one game file -------------------------------------------------------------------------


class Store(SqlFile):
    """One game's SQLite file. Opening it finishes any unfinished work."""

    def __init__(self, path: Path, *, clock: Callable[[], datetime] = _utcnow, recover: bool = True) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise StoreError(f"no game file {self.path}")
        self.clock = clock
        self._log: list[Event] = []  # the parsed event log, events 1..n (see _log_upto)
        self._log_hashes: list[str] = []  # the hash chain after each of them
        self._asked: dict[str, tuple[tuple[str, ...], bool]] = {}  # a snapshot's hash -> its step's (awaiting, over)
        self._kept: _Kept | None = None  # the state the last sealed orders made (see _keep)
        self._engine: Any = None  # the ORM's, made when a command first needs it (see engine)
        try:  # (a connection used by one thread at a time, as the ORM's pool hands its own out)
            self._conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None,
                                         check_same_thread=False)
        except sqlite3.Error as exc:
            raise _db_error(self.path, exc) from exc
        try:  # (a file that is no game of this version: the connection is closed, and the error says why)
            queries.prepare_connection(self._conn)
            self._migrate()
            with self._plain_read() as db:
                found = read_rows(db.conn, GameRow, "game")
                self._has_message_table = db.conn.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'message'").fetchone() is not None
            if not found:
                raise StoreError(f"{self.path} is not a pbem game file (no game record)")
            game = found[0]
            if game.schema_version not in READABLE_SCHEMAS:
                raise StoreError(f"{self.path} was written by another version of pbem (format "
                                 f"{game.schema_version!r}, this one reads {SCHEMA!r} and "
                                 f"{', '.join(map(repr, LEGACY_SCHEMAS))}); use the pbem version that created it")
        except sqlite3.Error as exc:
            self._conn.close()
            raise _db_error(self.path, exc) from exc
        except BaseException:
            self._conn.close()
            raise
        self.game_id = game.id
        # The game's record never changes once the file is made (pbem writes it once; an older format's
        # columns are added above, before it is read): kept, instead of read again in every transaction.
        self._game_row = game
        self.system: GameSystem = system_of(game)
        self.recipients: tuple[str, ...] = (*self.system.sides, MODERATOR)
        if game.schema_version in LEGACY_SCHEMAS:
            self._migrate_passwords()
        if recover:
            self.recover()

    def _migrate(self) -> None:
        """Bring a game file of an earlier format (LEGACY_SCHEMAS) to this one's columns: format 2 had
        one game system (Julius Caesar), no secret and kept passwords. Its stored format name stays,
        since the set-up hash covers it: such a game keeps drawing from its seed. A file of any format
        made before players had a language gets the ``language`` columns (English)."""
        conn = self._conn
        assert conn is not None
        # every table's columns in one query (the file is opened by every command: most need nothing)
        have: dict[str, set[str]] = {}
        for table, column in conn.execute(
                "SELECT m.name, c.name FROM sqlite_master AS m, pragma_table_info(m.name) AS c "
                "WHERE m.type = 'table' AND m.name IN ('game', 'player', 'outbox', 'submission')"):
            have.setdefault(table, set()).add(column)
        cols = have.get("game", set())
        if "schema_version" not in cols:
            return  # not a game file: the reading below says so
        if not any(c not in have.get(t, {c}) for t, c in _COLUMNS_ADDED):
            return  # this format's columns, all there
        with self._plain_write():
            # every player's language (and the language each report was queued in): English for a file
            # made before pbem spoke other languages, whatever its format
            for table in ("player", "outbox"):
                if table in have and "language" not in have[table]:
                    try:
                        conn.execute(f"ALTER TABLE {table} ADD COLUMN language VARCHAR NOT NULL DEFAULT 'en'")
                    except sqlite3.OperationalError as exc:  # another process added it first
                        if "duplicate column" not in str(exc):
                            raise
        with self._plain_write():
            versions = [row[0] for row in conn.execute("SELECT schema_version FROM game")]
            if not any(v in LEGACY_SCHEMAS for v in versions):
                return  # this format, or one that is refused below (and left as it is)
            added = [c for c in ("commitment", "secret") if c not in cols]
            for c in added:
                conn.execute(f"ALTER TABLE game ADD COLUMN {c} VARCHAR")
            out_cols = have.get("outbox", set())
            if out_cols and "renderer" not in out_cols:  # its reports were rendered by pbem 0.1
                conn.execute("ALTER TABLE outbox ADD COLUMN renderer VARCHAR")
            if "system" not in cols:
                conn.execute("ALTER TABLE game ADD COLUMN system VARCHAR NOT NULL DEFAULT 'caesar'")
            sub_cols = have.get("submission", set())
            if sub_cols and "password_check" not in sub_cols:
                conn.execute("ALTER TABLE submission ADD COLUMN password_check VARCHAR")

    @property
    def engine(self) -> Any:
        """The ORM's engine (SQLModel), made when a command first needs it: the pipeline (a submission
        decided, stored and reported) runs on the plain connection alone (pbem.sqlfile)."""
        if self._engine is None:
            self._engine = _engine(self.path, self)
        return self._engine

    def close(self) -> None:
        # Fold the write-ahead log back into the file now, even if another connection (of this
        # process or another) is open, so a file copied after the command ended is complete.
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):  # busy, read-only, a full disk: the log keeps it all
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.close()
            self._conn = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _db_error(self, exc: BaseException) -> Exception:  # a damaged, read-only or busy file: say which
        return _db_error(self.path, exc)

    def _now(self) -> str:
        return format_time(self.clock())

    # -- the pipeline
    def recover(self) -> None:
        """Finish unfinished work: decide received submissions, render missing reports."""
        self.process_pending()
        self.render_pending()

    def sync(self) -> None:
        """Make every commit so far durable (one fsync of the write-ahead log); call it
        before acknowledging anything. Commits themselves do not sync (``synchronous=NORMAL``):
        a killed process loses none of them, only a power cut could."""
        try:
            queries.sync_wal(self.path)
        except OSError as exc:
            raise _os_error(self.path, exc) from exc

    def receive(self, raw: bytes, source: str = "", *, message: MessageKey | None = None) -> Receipt:
        """Store ``raw`` exactly as received (its own commit), then decide and report."""
        return self.receive_many([(raw, source, message)], raise_refused=True)[0]

    def receive_many(self, items: Sequence[tuple[bytes, str, MessageKey | None]], *,
                     raise_refused: bool = False) -> list[Receipt]:
        """Receive several submissions (raw bytes, source, mailbox message or None) in order:
        every raw submission and its message's identity in one commit, then one decision per
        submission, one render pass for all reports, one fsync. A message already stored
        (the same bytes, or the same Message-ID carrying the same signed orders) is not
        stored again: its receipt is the earlier one, marked ``again``. Work left unfinished
        by an earlier process is finished on the way (decisions go lowest id first).

        A password submission refused before it is stored (held back by the guessing throttle, or a
        plain reply that cannot be read) gets a rejected receipt saying why, also when it is the only
        one (a mailbox's message: it will never do better, so it must not be tried again and again);
        ``raise_refused`` (one file, ``pbem submit``) raises the :class:`StoreError` instead."""
        now = self._now()
        # Password submissions are checked (scrypt) and stripped of their password before the write
        # lock is taken. One held back by the guessing throttle is refused alone: stored nowhere, and
        # (in a batch from a mailbox) answered with a receipt that says so, never holding up the rest.
        prepared: list[tuple[bytes, str | None] | StoreError] = []
        for raw, _source, _key in items:
            try:
                prepared.append(self._without_password(bytes(raw)))
            except StoreError as exc:
                if raise_refused:
                    raise
                prepared.append(exc)
        got: list[tuple[int, bool] | StoreError] = []
        try:
            with self._plain_write() as db:
                if any(key is not None for _, _, key in items):
                    self._message_table(db)
                # plain SQL: a row as received is a handful of columns (the ORM's objects and flushes cost more)
                run = own_connection(db).execute
                for (raw, source, key), prep in zip(items, prepared, strict=True):
                    if isinstance(prep, StoreError):
                        got.append(prep)
                        continue
                    earlier = self._known_message(run, key, raw, now) if key is not None else None
                    if earlier is not None:
                        got.append((earlier, True))
                        continue
                    stored, check = prep
                    sid = _insert_received(run, stored, check, now, source)
                    if key is not None:
                        _store_message(run, key, sid, now)
                    got.append((sid, False))
        except StorageError as exc:
            raise exc.told("Nothing of this was stored: " + ("submit it again" if len(items) == 1 else "feed it again")
                           + " once there is space.") from exc
        _checkpoint("received")
        try:
            self.process_pending()
            self.render_pending()
            self.sync()
        except StorageError as exc:
            raise exc.told(self._committed([g[0] for g in got if not isinstance(g, StoreError) and not g[1]])) from exc
        new = {g[0] for g in got if not isinstance(g, StoreError) and not g[1]}
        for sid, side, until in self.absences():  # an absence counts in all his running games of the home
            if sid in new:
                spread_absence(Home(self.path.parent, clock=self.clock), self.game_id, sid, side, until)
        receipts = self.receipts([g[0] for g in got if not isinstance(g, StoreError)])[::-1]  # (popped in order)
        return [Receipt(self.game_id, 0, Verdict.REJECTED, None, None, reason=str(g)) if isinstance(g, StoreError)
                else replace(receipts.pop(), again=g[1]) for g in got]

    def moderator_action(self, action: str, side: str = "", *, by: timedelta | None = None,
                         substitute: PlayerSetup | None = None, until: str | None = None,
                         origin: str | None = None) -> Receipt:
        """Store a moderator action (``forfeit``, ``extend``, ``pause``, ``resume``, ``replace``) for the open
        step as a moderator submission (:mod:`pbem.moderator`), then decide and report it like any
        submission: the audit replays it. ``replace`` gives ``side`` to ``substitute`` (his email and
        key or password hash): the player table changes in the same transaction that stores it."""
        if action == "replace":
            return self._replace(side, substitute)
        if action not in moderator.ACTIONS:
            raise StoreError(f"unknown moderator action {action!r}; the actions are: {', '.join(moderator.ACTIONS)}")
        step = self.status()
        if step.over:
            raise StoreError(f"game {self.game_id} is over ({step.result}); there is nothing to {action}")
        seconds = None
        if action == "extend":
            if by is None or by.total_seconds() < 60:
                raise StoreError("extend by how long? give a duration like 48h")
            if step.deadline is None:
                raise StoreError(f"step {step.step} of game {self.game_id} has no deadline to extend"
                                 + (" (the game is paused: `pbem resume` it first)" if step.paused else ""))
            seconds = int(by.total_seconds())
        if action == "pause" and step.paused:
            raise StoreError(f"game {self.game_id} is paused already; `pbem resume` it to run its deadlines again")
        if action == "resume" and not step.paused:
            raise StoreError(f"game {self.game_id} is not paused; nothing to resume")
        if action == "away" and (until is None or origin is None):
            raise StoreError("away until when, declared where? (pbem.store.spread_absence gives both)")
        raw = moderator.Action(action, self.game_id, side, step.step, seconds, until=until, origin=origin).to_bytes()
        with self._plain_write() as db:
            sid = _insert_received(db.conn.execute, raw, moderator.CHECK, self._now(), moderator.SOURCE)
        return self._decided(sid)

    def _replace(self, side: str, new: PlayerSetup | None) -> Receipt:
        if new is None or (new.public_key is None) == (new.password_hash is None):
            raise StoreError(f"the substitute for {side} needs exactly one credential: a public key or a password")
        if side not in self.system.sides:
            raise StoreError(f"{side!r} is not a side of this game; use {' or '.join(self.system.sides)}")
        _check_email(side, new.email)
        fingerprint = key_fingerprint(new.public_key) if new.public_key else None  # a bad key says what is wrong
        self.process_pending()  # every submission received before is decided with the old credentials
        with self._plain_write() as db:
            run = db.conn.execute
            if run("SELECT 1 FROM submission WHERE verdict = ? LIMIT 1", (Verdict.RECEIVED.value,)).fetchone():
                raise StoreError(f"a submission for game {self.game_id} arrived just now; run the command again")
            adj, _snap = self._current(db)
            step = adj.step()
            if step.over:
                raise StoreError(f"game {self.game_id} is over; there is nothing to replace")
            players = {p.side: p for p in read_rows(db.conn, PlayerRow, "player")}
            old = players[side]
            for other in players.values():
                if other.side != side and fingerprint and other.fingerprint == fingerprint:
                    raise StoreError(f"{other.side} has this public key; the substitute needs his own key pair "
                                     "(`pbem keygen`)")
            raw = moderator.Action("replace", self.game_id, side, step.number, key=new.public_key,
                                   old_key=old.public_key).to_bytes()
            sid = _insert_received(run, raw, moderator.CHECK, self._now(), moderator.SOURCE)
            run("UPDATE player SET email = ?, public_key = ?, password_hash = ?, fingerprint = ? WHERE side = ?",
                (new.email, new.public_key, new.password_hash, fingerprint, side))
            # The substitute needs the position to play on: the side's latest report (the one its old
            # player got) goes again, to the new address, with the next `pbem send`.
            run("UPDATE outbox SET sent = NULL WHERE kind = 'report' AND recipient = ? AND step = "
                "(SELECT MAX(step) FROM outbox WHERE kind = 'report' AND recipient = ?)", (side, side))
        return self._decided(sid)

    def _decided(self, sid: int) -> Receipt:
        """A moderator's action, stored as submission ``sid``: decide it in order with the others,
        render the reports, sync, and say what happened (or, on a write failure, what is stored)."""
        _checkpoint("received")
        try:
            self.process_pending()
            self.render_pending()
            self.sync()
        except StorageError as exc:
            raise exc.told(self._committed([sid])) from exc
        return self.receipt(sid)

    def _committed(self, sids: Sequence[int]) -> str:
        """What is stored of submissions ``sids`` and of the reports, said after a write failed."""
        marks = ", ".join("?" * len(sids))
        try:
            with self._plain_read() as db:
                run = db.conn.execute
                verdicts = dict(run(f"SELECT id, verdict FROM submission WHERE id IN ({marks})", tuple(sids)).fetchall())
                missing = run(f"SELECT COUNT(*) FROM outbox WHERE {RENDERING_OWED}").fetchone()[0] or 0
                resolved = dict(run(f"SELECT submission_id, step FROM snapshot WHERE submission_id IN ({marks})",
                                    tuple(sids)).fetchall())
        except StoreError:
            return "Nothing committed was lost."
        parts = []
        for sid in sids:
            verdict = verdicts.get(sid)
            if verdict is None:
                continue
            if verdict == Verdict.RECEIVED.value:
                parts.append(f"submission #{sid} is stored and will be decided when pbem next opens the game")
            else:
                what = f"submission #{sid} is stored and {verdict}"
                if sid in resolved:
                    what += f" (it resolved the step; step {resolved[sid]} is open)"
                parts.append(what)
        if missing:
            parts.append(f"{missing} report{'s are' if missing > 1 else ' is'} not written yet and will be rendered "
                         "when pbem next opens the game")
        return ("Nothing was lost: " + "; ".join(parts) + ".") if parts else "Nothing was lost."

    def _message_table(self, db: Tx) -> None:
        """Game files written before the ``message`` table get it here, in the caller's transaction
        (the statements SQLModel makes of :class:`pbem.tables.MessageRecord`: :data:`MESSAGE_TABLE`)."""
        if not self._has_message_table:
            sql = own_connection(db)
            if sql.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'message'").fetchone() is None:
                for statement in MESSAGE_TABLE:
                    sql.execute(statement)
            self._has_message_table = True

    def _known_message(self, run: queries.Run, key: MessageKey, raw: bytes, now: str) -> int | None:
        """The submission an already stored mailbox message carried, or None for a new message.
        The same bytes are the same message; a message with a Message-ID seen before (a
        redelivery with other transport headers) is the same one only if it carries the same
        signed orders, so a stranger who reuses a Message-ID cannot hide a player's orders."""
        for (sid,) in run("SELECT submission_id FROM message WHERE digest = ?", (key.digest,)):
            return int(sid)
        if not key.message_id:
            return None
        earlier = [int(sid) for (sid,) in run("SELECT submission_id FROM message WHERE message_id = ? ORDER BY rowid",
                                              (key.message_id,))]
        mine = _digest_of(raw) if earlier else None
        for sid in earlier:
            for digest, stored in run("SELECT digest, raw FROM submission WHERE id = ?", (sid,)):
                if mine is not None and (digest or _digest_of(bytes(stored))) == mine:
                    _store_message(run, key, sid, now)
                    return sid
        return None

    def _without_password(self, raw: bytes) -> tuple[bytes, str | None]:
        """A password-mode submission is checked now and stored without its password (DESIGN,
        "Storage"); anything else is stored exactly as received."""
        try:
            sub = parse_submission(raw)
        except EnvelopeError:
            plain = self._plain_reply(raw)
            if plain is None:
                return raw, None
            sub = plain
        if sub.password is None:
            return raw, None
        with self._plain_read() as db:
            found = db.conn.execute("SELECT password_hash FROM player WHERE side = ?", (sub.envelope.side,)).fetchone()
            self._throttle(db, sub.envelope.side)
        return without_password(sub), check_password_of(sub, found[0] if found else None)

    def _plain_reply(self, raw: bytes) -> SignedSubmission | None:
        """A plain email reply with a ``password:`` line (:mod:`pbem.plainreply`) as the password-mode
        submission it makes, or None when it is not one. One that cannot be read is refused here,
        stored nowhere (it holds a password), with what to write instead."""
        from pbem.plainreply import has_password_line, plain_reply

        if not has_password_line(raw):
            return None
        with self._plain_read() as db:
            emails = dict(db.conn.execute("SELECT side, email FROM player").fetchall())
            last = dict(db.conn.execute(
                "SELECT recipient, MAX(step) FROM outbox WHERE kind = 'report' GROUP BY recipient").fetchall())
        try:
            return plain_reply(raw, self.game_id, emails, last)
        except EnvelopeError as exc:
            raise StoreError(f"a plain reply with a password that cannot be read, so it was not stored (it holds a "
                             f"password): {exc}") from None

    def _throttle(self, db: Tx, side: str) -> None:
        """Refuse a password submission for ``side`` while it waits after wrong passwords (before any
        scrypt work, storing nothing, so nothing is replied): after FREE_GUESSES wrong ones in a row,
        the next is refused for THROTTLE_BASE, doubling with each further wrong one (at most a day)."""
        rows = own_connection(db).execute(
            "SELECT password_check, received FROM submission WHERE side = ? AND password_check IS NOT NULL "
            "ORDER BY id DESC LIMIT 64", (side,)).fetchall()
        wrong = 0
        for check, _ in rows:
            if check != PASSWORD_WRONG:
                break
            wrong += 1
        if wrong < FREE_GUESSES:
            return
        wait = min(THROTTLE_BASE * 2 ** (wrong - FREE_GUESSES), THROTTLE_MAX)
        until = parse_time(rows[0][1]) + wait
        if self.clock() < until:
            raise StoreError(f"{wrong} wrong passwords in a row for {side}: password submissions for {side} are "
                             f"refused until {format_time(until)} (each further wrong one doubles the wait); "
                             "nothing was stored. Send it again after that time; orders signed with a key "
                             "(`pbem keygen`) are not held up")

    def _migrate_passwords(self) -> None:
        """Files written before passwords were removed: remove them from the stored submissions."""
        from sqlmodel import select

        from pbem.tables import PlayerRecord, SubmissionRecord

        with self._write() as db:
            rows = db.exec(select(SubmissionRecord).where(SubmissionRecord.password_check.is_(None))).all()  # type: ignore[union-attr]
            players = {p.side: p for p in db.exec(select(PlayerRecord)).all()}
            for row in rows:
                try:
                    sub = parse_submission(row.raw)
                except EnvelopeError:
                    continue
                if sub.password is None:
                    continue
                player = players.get(sub.envelope.side)
                row.password_check = check_password_of(sub, player.password_hash if player else None)
                row.raw = without_password(sub)
                db.add(row)

    def process_pending(self) -> int:
        """Decide every received submission, lowest id first, all in one transaction: a process killed
        midway committed none of them, and the next one decides them all again, in the same order."""
        done = 0
        with self._plain_write() as db:
            players: dict[str, PlayerRow] | None = None
            while rows := read_rows(  # (again until none is left: a decision could store another)
                    db.conn, SubmissionRow, "submission", "WHERE verdict = ? ORDER BY id", (Verdict.RECEIVED.value,)):
                if players is None:  # kept through the pass: a change a decision makes to one, the next one sees
                    players = {p.side: p for p in read_rows(db.conn, PlayerRow, "player")}
                for row in rows:
                    adj, snap, sealed = self._decidable(db)
                    digests = self._accepted_digests(db)
                    out = decide(adj, self.game_id, players, row.raw, digests, row.password_check,
                                 self._offers(db, snap.step))
                    if out.detail:  # the adjudicator failed: the moderator gets the traceback, the player the kind
                        _log.error("game %s, submission #%s: %s", self.game_id, row.id, out.detail.rstrip())
                    self._store_outcome(db, row, out, snap, adj, sealed, players)
                    done += 1
        if done:
            _checkpoint("after-commit")
        return done

    def _store_outcome(
        self, db: PlainSession, row: SubmissionRow, out: Outcome, snap: _OpenStep, adj: Adjudication,
        sealed: queries.Sealed | None = None, players: dict[str, PlayerRow] | None = None,
    ) -> None:
        """Write ``out``, the decision of submission ``row``, into its row, with what it brings: the events
        and the new state of a step it resolved, the player's choices it makes, the reply by mail."""
        run = db.conn.execute
        row.verdict = out.verdict.value
        row.side, row.step, row.digest = out.side, out.step, out.digest
        row.reason = out.reason
        row.errors = canonical_json(out.errors) if out.errors else None
        row.related = out.related
        row.processed = self._now()
        if out.verdict is Verdict.ACCEPTED and (out.side == MODERATOR or out.control):  # nothing superseded
            # (pbem replace changed the player table when it stored the action: see _replace)
            row.applied_step = snap.step
            row.orders = out.orders
            if out.resolved_step is None and out.events:  # an extension: told to both sides in the chain now
                _write_decision(run, row)
                self._append_events(db, out.events, snap.step)
            if out.orders == OFFER_DRAW and out.side != MODERATOR:  # the other side is told at once, by mail
                self._queue_offer_notice(db, row, out, snap.step)
        elif out.verdict is Verdict.ACCEPTED:
            row.applied_step = snap.step
            row.orders = out.orders
            wanted = requested_language(order_lines(out.orders or ""))
            if wanted is not None and out.side:  # from the reports and replies made after it
                queries.set_language(run, out.side, wanted)
                if players is not None and out.side in players:  # (the next decision of this pass sees it)
                    players[out.side].language = wanted
            fold = requested_folding(order_lines(out.orders or ""))
            if fold is not None and out.side:  # which steps he gets mail for, from the mails made after it
                self._set_folding(db, out.side, fold)
            _write_decision(run, row)
            assert row.id is not None and out.side is not None
            replaced = queries.supersede_earlier(run, row.id, out.side, snap.step)
            if replaced is not None:  # a revision: the submission it replaces
                row.related = replaced
            elif sealed is not None and out.submitted and out.resolved_step is None:
                self._keep(snap, sealed, out)
        _write_decision(run, row)
        if out.resolved_step is not None:
            assert out.adjudication is not None
            self._record_resolution(db, out.adjudication, out.events, Cause.SUBMISSION, row.id, out.resolved_step, self.clock())
        queue_reply(db, self.game_id, row, out, snap.step, self._now(),  # by email only; same transaction
                    lambda raw: signer_elsewhere(self.path.parent, self.game_id, raw))
        _checkpoint("before-commit")

    def _queue_offer_notice(self, db: PlainSession, row: SubmissionRow, out: Outcome, step: int) -> None:
        """A mail to every other side telling of ``out``'s offer of a draw (outbox kind ``notice``): an
        offer lapses after the next step, and a player may get no report before then (mail folding)."""
        text = next((e.text for e in out.events if e.kind == "draw-offer"), "")
        assert row.id is not None
        for p in read_rows(db.conn, PlayerRow, "player", "ORDER BY rowid"):
            if p.side == out.side or not p.email:
                continue
            queue_mail(db, step, p.side, p.email, f"[{self.game_id}] step {step}: {out.side} offers a draw",
                       f"Game {self.game_id}, step {step}: {text}.\nTo play on, do nothing: send your orders as usual.\n",
                       self._now(), row.id, p.language or "en", kind=NOTICE)

    def _record_resolution(
        self, db: Tx, adj: Adjudication, events: Sequence[Event], cause: Cause, sid: int | None, resolved: int,
        now: datetime,
    ) -> None:
        game = self._game_row
        seq = self._append_events(db, events, resolved)
        db.flush()  # a verdict changed in this transaction counts in the plain query below
        last_sub = own_connection(db).execute(
            "SELECT id FROM submission WHERE verdict != ? ORDER BY id DESC LIMIT 1", (Verdict.RECEIVED.value,)).fetchone()
        text = self._add_snapshot(db, game, adj, seq, cause, sid, last_sub[0] if last_sub else 0, now)
        # The new step's state, as stored, is ``adj``: its reports are rendered from a copy (which is the
        # state as its text reads back: Adjudication.copy; decide.known_state) and the next submission is
        # decided on a copy, as after sealed orders (_keep), instead of reading the text back (a new game's
        # first decision still reads it: `pbem new` decides nothing).
        known_state(self.system, text, adj.copy())
        if cause is not Cause.NEW:
            self._kept = _Kept(text, (), adj)

    def _append_events(self, db: Tx, events: Sequence[Event], step: int) -> int:
        """Chain ``events`` (of ``step``) after the last one; the last sequence number."""
        sql = own_connection(db)
        head = sql.execute("SELECT hash, seq FROM event ORDER BY seq DESC LIMIT 1").fetchone()
        prev, seq = (head[0], head[1]) if head else (self._game_row.header_hash, 0)
        rows = []
        for ev in events_json(events):
            seq += 1
            h = event_hash(seq, step, ev, prev)
            rows.append((seq, step, ev["audience"], ev["kind"], ev["text"], canonical_json(ev["data"]), prev, h))
            prev = h
        if rows:  # one INSERT for the lot, in this transaction (the log is only ever read back by queries)
            sql.executemany("INSERT INTO event (seq, step, audience, kind, text, data, prev_hash, hash) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        return seq

    def _add_snapshot(
        self, db: Tx, game: GameRow, adj: Adjudication, last_event: int, cause: Cause, sid: int | None,
        after: int, now: datetime,
    ) -> str:
        """Store ``adj`` as the snapshot of its step, with the step's reports queued; its stored text."""
        text = canonical_json(adj.to_json())
        step = adj.step()
        digest = sha256_text(text)
        self._asked[digest] = (tuple(step.awaiting), step.over)
        deadline = None
        if game.deadline_seconds and not step.over:
            deadline = format_time(now + timedelta(seconds=game.deadline_seconds))
        db.flush()  # the reports of an earlier resolution (and the players' changes) in this transaction count
        sql = own_connection(db)
        sql.execute("INSERT INTO snapshot (step, session, hash, last_event, cause, submission_id, after_submission, "
                    "deadline, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (step.number, text, digest, last_event, cause.value, sid, after, deadline, format_time(now)))
        players = sql.execute("SELECT side, email, language FROM player").fetchall()
        emails = {side: email for side, email, _language in players}
        emails[MODERATOR] = game.moderator_email
        # each recipient's last report so far (per format): the new one starts where it ended
        # (SQLite gives the bare column upto_event from the row that has the MAX: one report per recipient,
        # format and step; one pass instead of a subquery per row)
        last = {(r, f): upto for r, f, upto, _step in sql.execute(
            "SELECT recipient, format, upto_event, MAX(step) FROM outbox WHERE kind = 'report' "
            "GROUP BY recipient, format")}
        languages = {side: language or "en" for side, _email, language in players}
        folding = self._folding(db)
        created = format_time(now)
        rows = []
        for recipient in self.recipients:
            # A player who gets mail only for the steps that ask something of him (folding, the default):
            # the report of such a step tells what happened since his last report that asked something.
            asked = step.over or step.awaits(recipient)
            fold = folding.get(recipient, False) and asked
            # A report that goes to no one as things stand (a step that asks nothing of a player who folds
            # it into his next mail, a recipient without an address) is kept without a body, rendered
            # when asked for (records.ON_DEMAND); the send renders and stores it if it is mailed after all.
            on_demand = not emails.get(recipient) or (folding.get(recipient, False) and not asked)
            last_mailed = self._last_asking_report(db, recipient, before=step.number) if fold else None
            mailed: dict[str, int] = {}  # format -> the last event of the report that last asked him
            if last_mailed is not None:
                mailed = dict(sql.execute(
                    "SELECT format, upto_event FROM outbox WHERE recipient = ? AND kind = 'report' AND step = ?",
                    (recipient, last_mailed)).fetchall())
            language = languages.get(recipient, "en")
            subject = report_subject(game.id, step.number, step.title, language)
            for fmt in FORMATS:
                since = mailed.get(fmt) if fold else last.get((recipient, fmt))
                rows.append((step.number, recipient, emails.get(recipient, ""), fmt, subject, since or 0, last_event,
                             created, ON_DEMAND if on_demand else None, language))
        # one INSERT for the step's reports, without their bodies (rendered later, by render_pending)
        sql.executemany("INSERT INTO outbox (step, kind, recipient, email, format, subject, body, since_event, upto_event, "
                        "created, sent, submission_id, renderer, language) "
                        "VALUES (?, 'report', ?, ?, ?, ?, NULL, ?, ?, ?, NULL, NULL, ?, ?)", rows)
        return text

    # -- mail folding: one mail per step that asks something of a player
    def _folding(self, db: Tx) -> dict[str, bool]:
        """Per side, whether its reports of steps that ask nothing of it are folded into its next
        mail that asks something (the default; a player may opt out: :meth:`set_folding`)."""
        prefs = {side: True for side in self.system.sides}
        sql = own_connection(db)
        if sql.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'mail_pref'").fetchone():
            for side, fold in sql.execute("SELECT side, fold FROM mail_pref"):
                if side in prefs:
                    prefs[side] = bool(fold)
        return prefs

    def folding(self) -> dict[str, bool]:
        with self._plain_read() as db:
            return self._folding(db)

    def set_folding(self, side: str, fold: bool) -> None:
        """Store a player's choice: fold the steps that ask nothing of him (True) or a mail every step.
        The player makes it himself with a ``mailing`` line in a submission (:mod:`pbem.core.mailing`)."""
        if side not in self.system.sides:
            raise StoreError(f"game {self.game_id} has no side {side!r}; its sides are {', '.join(self.system.sides)}")
        with self._plain_write() as db:
            self._set_folding(db, side, fold)

    @staticmethod
    def _set_folding(db: Tx, side: str, fold: bool) -> None:
        queries.set_folding(own_connection(db).execute, side, fold)

    def _asks(self, db: Tx, step: int) -> tuple[tuple[str, ...], bool]:
        """The sides step ``step`` waited for when it opened, and whether the game was over then."""
        sql = own_connection(db)
        found = sql.execute("SELECT hash FROM snapshot WHERE step = ?", (step,)).fetchone()
        if found is None:
            return (), False
        known = self._asked.get(found[0])  # keyed by the state's hash: a rolled-back snapshot cannot mislead
        if known is not None:
            return known
        session = sql.execute("SELECT session FROM snapshot WHERE step = ?", (step,)).fetchone()[0]
        info = self.system.load(json.loads(session)).step()
        self._asked[found[0]] = (tuple(info.awaiting), info.over)
        return self._asked[found[0]]

    def asks(self, steps: Sequence[int]) -> dict[int, tuple[tuple[str, ...], bool]]:
        with self._plain_read() as db:
            return {s: self._asks(db, s) for s in set(steps)}

    def handovers(self) -> set[tuple[int, str]]:
        """The (step, side) of every accepted ``pbem replace``: the substitute's first report, the
        position he takes over, goes to him as a mail of its own even if that step asks nothing of
        his side (it is never folded into a later mail: he has seen nothing of the game yet)."""
        with self._plain_read() as db:
            rows = db.conn.execute(
                "SELECT raw FROM submission WHERE source = ? AND password_check = ? AND verdict = ?",
                (moderator.SOURCE, moderator.CHECK, Verdict.ACCEPTED.value)).fetchall()
        acts = (moderator.action_of(bytes(raw)) for (raw,) in rows)
        return {(a.step, a.side) for a in acts if a is not None and a.action == "replace"}

    def _last_asking_report(self, db: Tx, recipient: str, before: int) -> int | None:
        """The latest step before ``before`` whose report asked something of ``recipient`` (None: none)."""
        steps = own_connection(db).execute(
            "SELECT DISTINCT step FROM outbox WHERE recipient = ? AND kind = 'report' AND step < ? ORDER BY step DESC",
            (recipient, before)).fetchall()
        for (s,) in steps:
            awaiting, over = self._asks(db, s)
            if over or recipient in awaiting:
                return s
        return None

    def render_pending(self) -> int:
        """Fill every report whose body is missing (deterministic: from the stored log).

        All of them are rendered in one transaction under the write lock, so processes
        that recover at the same time neither store a report twice nor render it twice."""
        done = 0
        with self._plain_write() as db:
            sql = own_connection(db)
            # plain columns and one UPDATE for all (the ORM's rows and flush cost more than the queries)
            rows = [_PendingReport(*r) for r in sql.execute(
                "SELECT id, step, recipient, format, since_event, upto_event, language FROM outbox "
                f"WHERE {RENDERING_OWED} ORDER BY id")]
            if not rows:
                return 0
            written: list[tuple[bytes, str, int]] = []
            for row, body in zip(rows, self._render_rows(db, rows), strict=True):
                # stored as the ORM's ReportBody column stores it (pbem.bodies)
                written.append((bodies.pack(body), renderer_of(self.system, row.language or "en"), row.id))
                done += 1
                _checkpoint("rendered")
            sql.executemany("UPDATE outbox SET body = ?, renderer = ? WHERE id = ?", written)
        return done

    def _render_rows(self, db: Tx, rows: Sequence[_PendingReport]) -> Iterator[str]:
        """The bodies of reports ``rows`` (in order), rendered from the stored game."""
        if not rows:
            return
        sql = own_connection(db)
        log, chain = self._log_upto(db, max(row.upto_event for row in rows))
        # The steps of every report each (recipient, format) has from the first step rendered here on,
        # and his last one before it: a report's "before" is his latest report step below its own.
        first = min(row.step for row in rows)
        report_steps: dict[tuple[str, str], list[int]] = {}
        for recipient, fmt, step_no in [
            *sql.execute("SELECT recipient, format, MAX(step) FROM outbox WHERE kind = 'report' "
                         "AND step < ? GROUP BY recipient, format", (first,)),
            *sql.execute("SELECT DISTINCT recipient, format, step FROM outbox WHERE kind = 'report' "
                         "AND step >= ?", (first,))]:
            report_steps.setdefault((recipient, fmt), []).append(step_no)
        befores = [max((s for s in report_steps.get((row.recipient, row.format), ()) if s < row.step),
                       default=None) for row in rows]
        wanted = {row.step for row in rows} | {b for b in befores if b is not None}
        snaps = {step_no: (session, deadline) for step_no, session, deadline in sql.execute(
            f"SELECT step, session, deadline FROM snapshot WHERE step IN ({', '.join('?' * len(wanted))})",
            tuple(wanted))}
        for row, before in zip(rows, befores, strict=True):
            if row.step not in snaps:
                raise StoreError(f"{self.path} is damaged: report #{row.id} is for step {row.step}, which has "
                                 "no snapshot; `pbem verify` shows what differs; restore the file from a backup")
            session, deadline = snaps[row.step]
            # the chain up to the report's last event (before the first event: the set-up's hash)
            at = chain[row.upto_event - 1] if row.upto_event else self._game_row.header_hash
            prev = snaps.get(before) if before is not None else None
            yield render_report(self.system, session, log, row, deadline, at, prev[0] if prev is not None else None)

    def warm_up(self) -> None:
        """Render the open step's reports for one side, in each format, and keep nothing: what rendering
        loads once per process (the templates, the map's fixed layers) is then loaded. A process that
        forks workers calls it first, so that they share it instead of each loading it."""
        side = self.system.sides[0]
        with self._plain_read() as db:
            snap = self._snapshot(db)
            upto = db.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM event").fetchone()[0]
            for _body in self._render_rows(db, [_PendingReport(0, snap.step, side, fmt, 0, upto, "en")
                                                 for fmt in FORMATS]):
                pass

    def on_demand(self, rows: Sequence[OutboxRow], *, store: bool = False) -> dict[int, str]:
        """The bodies of the reports among ``rows`` kept without one (records.ON_DEMAND), by row id,
        rendered from the stored game as they would have been when queued. ``store``: write them in
        (one transaction; they are then reports like the others, compared by ``pbem verify``), for
        a report about to leave pbem (mailed or printed); else nothing is written (a file only read)."""
        wanted = [_PendingReport(r.id or 0, r.step, r.recipient, r.format, r.since_event, r.upto_event,
                                 r.language or "en")
                  for r in rows if r.kind == "report" and kept_on_demand(r)]
        if not wanted:
            return {}
        with (self._plain_write() if store else self._plain_read()) as db:
            made = dict(zip((w.id for w in wanted), self._render_rows(db, wanted), strict=True))
            if store:
                db.conn.executemany(
                    "UPDATE outbox SET body = ?, renderer = ? WHERE id = ? AND body IS NULL",
                    [(bodies.pack(made[w.id]), renderer_of(self.system, w.language), w.id) for w in wanted])
        return made

    def with_bodies(self, rows: list[OutboxRow], *, store: bool = False) -> list[OutboxRow]:
        """``rows`` with the bodies of those kept on demand filled in: rendered, and with ``store``
        stored too (they leave pbem: see :meth:`on_demand`)."""
        made = self.on_demand(rows, store=store)
        for row in rows:
            if row.id in made:
                row.body = made[row.id]
        return rows

    # -- reading state
    def _snapshot(self, db: Tx) -> _OpenStep:
        """The latest snapshot (the state of the open step, before its sealed orders)."""
        found = own_connection(db).execute("SELECT step, session, deadline FROM snapshot ORDER BY step DESC LIMIT 1").fetchone()
        if found is None:
            raise StoreError(f"{self.path} has no snapshot; the file is damaged")
        return _OpenStep(*found)

    def _current(self, db: Tx) -> tuple[Adjudication, _OpenStep]:
        adj, snap, _sealed = self._decidable(db)
        return adj, snap

    def _decidable(self, db: Tx) -> tuple[Adjudication, _OpenStep, queries.Sealed]:
        """The state a new submission is decided against (the open step's snapshot with the orders
        accepted for it since), the snapshot, and those orders. A copy of the kept state when it was
        made of the same snapshot and the same orders (see :meth:`_keep`), else read from the file."""
        snap = self._snapshot(db)
        db.flush()  # (the plain query below does not flush the session's changes itself)
        sealed = queries.accepted_orders(own_connection(db).execute, snap.step)
        kept = self._kept
        if kept is not None and kept.session == snap.session and kept.sealed == sealed:
            return kept.adj.copy(), snap, sealed
        try:
            adj = self.system.load(json.loads(snap.session))
        except (ValueError, KeyError, TypeError, AttributeError, PbemError) as exc:  # hand-edited or damaged
            raise StoreError(f"{self.path}: the stored state of step {snap.step} is damaged "
                             f"({type(exc).__name__}: {str(exc)[:200]}); `pbem verify --game {self.game_id}` "
                             "shows what differs; restore the file from a backup") from None
        adj.attach_secret(game_secret(self._game_row))
        return queries.replay(adj, sealed), snap, sealed

    def _keep(self, snap: _OpenStep, sealed: queries.Sealed, out: Outcome) -> None:
        """Keep the state ``out`` accepted orders into (sealed; the step goes on) for the next submission:
        it is the replay of ``sealed`` and these orders on ``snap``, which :meth:`_decidable` would
        otherwise read and replay again. Only orders that replace none of the side's earlier ones (a
        revision replays differently: the earlier orders drop out) and only for the same snapshot and
        orders: a transaction rolled back leaves a key no later read matches."""
        assert out.adjudication is not None and out.side is not None
        self._kept = _Kept(snap.session, (*sealed, (out.side, out.orders or "", out.digest or "")), out.adjudication)

    def _paused(self, db: Tx) -> bool:
        return self._clock_actions(db)[0]

    def _clock_actions(self, db: Tx) -> tuple[bool, list[tuple[SubmissionRow, moderator.Action]]]:
        """Whether the game is paused now, and every accepted moderator action that moves the clock."""
        db.flush()  # (the plain query below does not flush the session's changes itself)
        rows = read_rows(own_connection(db), SubmissionRow, "submission", "WHERE verdict = ? AND password_check = ? "
                         "ORDER BY id", (Verdict.ACCEPTED.value, moderator.CHECK))
        acts = [(r, a) for r in rows if (a := moderator.action_of(r.raw)) is not None]
        paused = False
        for _, a in acts:
            if a.action in ("pause", "resume"):
                paused = a.action == "pause"
        return paused, acts

    def _deadline(self, db: Tx, snap: _OpenStep) -> str | None:
        """The open step's deadline: none while the game is paused; else the one it opened with (or, when
        the game was resumed during this step, a whole deadline from the resumption), moved by the
        moderator's extensions made since."""
        paused, acts = self._clock_actions(db)
        if paused:
            return None
        base = snap.deadline
        mine = [(r, a) for r, a in acts if r.applied_step == snap.step]
        resumed = [r for r, a in mine if a.action == "resume"]
        if resumed:
            game = self._game_row
            if not game.deadline_seconds:
                return None
            base = format_time(parse_time(resumed[-1].received) + timedelta(seconds=game.deadline_seconds))
        if base is None:
            return None
        since = resumed[-1].id or 0 if resumed else 0
        extra = sum(a.by or 0 for r, a in mine if a.action == "extend" and (r.id or 0) > since)
        due = parse_time(base) + timedelta(seconds=extra)
        latest: dict[str, datetime] = {}  # side -> the end of his absence, as he last declared it
        for r in read_rows(own_connection(db), SubmissionRow, "submission", "WHERE verdict = ? ORDER BY id",
                           (Verdict.ACCEPTED.value,)):
            if queries.is_away(r.orders):
                who = r.side or ""
                if r.password_check == moderator.CHECK:  # declared in another game (spread_absence)
                    act = moderator.action_of(r.raw)
                    who = act.side if act is not None else who
                latest[who] = parse_time((r.orders or "")[len("away until "):])
        if latest and max(latest.values()) > due:  # a player away: the deadline waits, within the cap
            due = min(max(latest.values()), due + self.away_cap())
        return format_time(due)

    def away_cap(self) -> timedelta:
        """How far a player's absence may move a deadline: the tournament's cap for a game of a tournament
        that sets one (``pbem tournament new --away-cap``), else the home's (``pbem config --away-cap``)."""
        from pbem.settings import away_cap

        return away_cap(self.path.parent, self.game_id)

    def absences(self) -> list[tuple[int, str, str]]:
        """The players' own accepted ``away until`` declarations: (submission id, side, until), oldest first."""
        with self._plain_read() as db:
            rows = db.conn.execute(
                "SELECT id, side, orders, password_check FROM submission WHERE verdict = ? AND orders LIKE ? "
                "ORDER BY id", (Verdict.ACCEPTED.value, "away until %")).fetchall()
        return [(sid or 0, side or "", (orders or "")[len("away until "):]) for sid, side, orders, check in rows
                if check != moderator.CHECK]

    def absence_origins(self) -> set[str]:
        """The declarations of other games carried here already (their ``GAME#SUBMISSION``)."""
        with self._plain_read() as db:
            rows = db.conn.execute("SELECT raw FROM submission WHERE verdict = ? AND password_check = ? AND orders LIKE ?",
                                   (Verdict.ACCEPTED.value, moderator.CHECK, "away until %")).fetchall()
        return {a.origin for (raw,) in rows if (a := moderator.action_of(bytes(raw))) is not None and a.origin}

    def _offers(self, db: Tx, open_step: int) -> dict[str, int]:
        """The draw offers standing while ``open_step`` is open (pbem.control.standing_offers)."""
        db.flush()  # (the plain query below does not flush the session's changes itself)
        return queries.the_offers(own_connection(db).execute, open_step)

    def _accepted_digests(self, db: Tx) -> dict[str, int]:
        return queries.accepted_digests(own_connection(db).execute)

    def _log_upto(self, db: Tx, upto: int) -> tuple[list[Event], list[str]]:
        """The parsed log, at least events 1 to ``upto``, and the hash chain after each (both indexed
        from event 1); the lists are kept by the store: slice them, never change them.

        The log only grows, and each event's hash covers every event before it, so the parsed log
        is kept between calls: it is used again while the file's event at its end has the hash it
        had when read (a write that was rolled back, or another process, cannot leave it stale),
        and only the events after it are read."""
        n = len(self._log)
        sql = own_connection(db)
        if n:
            last = sql.execute("SELECT hash FROM event WHERE seq = ?", (n,)).fetchone()
            if last is None or last[0] != self._log_hashes[-1]:
                self._log, self._log_hashes, n = [], [], 0
        if upto > n:
            rows = sql.execute("SELECT seq, kind, audience, text, data, hash FROM event WHERE seq > ? AND seq <= ? "
                               "ORDER BY seq", (n, upto)).fetchall()
            for i, (seq, *_rest) in enumerate(rows):
                if seq != n + i + 1:
                    raise StoreError(f"{self.path} is damaged: event #{n + i + 1} is missing from the log; `pbem verify` "
                                     "shows what differs; restore the file from a backup")
            if len(rows) < upto - n:
                raise StoreError(f"{self.path} is damaged: a report covers event #{upto}, which is not in the log; "
                                 "`pbem verify` shows what differs; restore the file from a backup")
            # new lists: what was handed out stays as it was
            self._log = self._log + [_event_from(seq, kind, audience, text, data) for seq, kind, audience, text, data, _h in rows]
            self._log_hashes = self._log_hashes + [h for *_rest, h in rows]
        return self._log, self._log_hashes

    def game(self) -> GameRow:
        """The game's record (its set-up)."""
        with self._plain_read() as db:
            return read_rows(db.conn, GameRow, "game")[0]

    def players(self) -> list[PlayerRow]:
        """The players' records, by side."""
        with self._plain_read() as db:
            return read_rows(db.conn, PlayerRow, "player", "ORDER BY side")

    def adjudication(self) -> Adjudication:
        """The current adjudication state (sealed orders of the open step included)."""
        with self._plain_read() as db:
            return self._current(db)[0]

    def status(self, now: datetime | None = None) -> Status:
        with self._plain_read() as db:
            adj, snap = self._current(db)
            due = self._deadline(db, snap)
            paused = self._paused(db)
            offers = self._offers(db, snap.step)
        step = adj.step()
        now = now or self.clock()
        overdue = bool(due and not step.over and now >= parse_time(due))
        return Status(
            game=self.game_id,
            step=step.number,
            kind=step.kind,
            title=step.title,
            awaiting=step.awaiting,
            received=step.received,
            deadline=due if not step.over else None,
            overdue=overdue,
            over=step.over,
            summary=adj.summary(),
            paused=paused and not step.over,
            draw_offers={} if step.over else {side: n + OFFER_STEPS for side, n in offers.items()},
        )

    def receipt(self, sid: int) -> Receipt:
        return self.receipts([sid])[0]

    def receipts(self, sids: Sequence[int]) -> list[Receipt]:
        """The receipts of submissions ``sids`` (in that order), read in one transaction."""
        marks = ", ".join("?" * len(sids))
        with self._plain_read() as db:
            sql = own_connection(db)  # plain queries: the rows, the state each one opened, the open step's number
            rows = {r[0]: _Told(*r) for r in sql.execute(
                "SELECT id, verdict, side, step, reason, errors, related, applied_step FROM submission "
                f"WHERE id IN ({marks})", tuple(sids))}
            for sid in sids:
                if sid not in rows:
                    raise StoreError(f"game {self.game_id} has no submission #{sid}")
            opened: dict[int, str] = {}
            for sid, session in sql.execute(
                    f"SELECT submission_id, session FROM snapshot WHERE submission_id IN ({marks}) "
                    "ORDER BY rowid", tuple(sids)):
                opened.setdefault(sid, session)  # (the first state a submission opened)
            open_step = sql.execute("SELECT MAX(step) FROM snapshot").fetchone()[0]
            if open_step is None:
                raise StoreError(f"{self.path} has no snapshot; the file is damaged")
            stands: dict[int, int | None] = {}
            waiting: dict[int, tuple[str, ...]] = {}
            missing: tuple[str, ...] | None = None
            for sid in sids:
                row = rows[sid]
                if row.verdict == Verdict.REJECTED.value and row.errors and row.side and row.step == open_step:
                    # orders checked and refused (so the sender is the player): his earlier orders still count
                    stands[sid] = queries.orders_that_stand(sql.execute, row.side, open_step, sid)
                if row.verdict == Verdict.ACCEPTED.value and sid not in opened and open_step == row.applied_step:
                    if missing is None:  # the state is loaded only when it is needed, and once
                        missing = self._current(db)[0].step().missing
                    waiting[sid] = missing
        made = []
        for sid in sids:
            row, resolved = rows[sid], opened.get(sid)
            next_step, next_title = None, ""
            if resolved is not None:  # the state its reports were just rendered from (decide keeps it loaded)
                nxt = loaded_state(self.system, resolved).step()
                next_step, next_title = nxt.number, nxt.title
            made.append(Receipt(
                game=self.game_id,
                submission=sid,
                verdict=Verdict(row.verdict),
                side=row.side,
                step=row.step,
                reason=row.reason or "",
                errors=tuple(json.loads(row.errors)) if row.errors else (),
                related=row.related,
                resolved=resolved is not None,
                next_step=next_step,
                next_title=next_title,
                waiting_for=waiting.get(sid, ()),
                stands=stands.get(sid),
            ))
        return made

    def message_ids(self, sids: Sequence[int]) -> dict[int, str]:
        """The Message-ID of the mailbox message that carried each submission in ``sids`` (those that
        came by mail with one), so that the reply to it can name it (``In-Reply-To``)."""
        if not sids or not self._has_message_table:
            return {}
        with self._plain_read() as db:
            rows = db.conn.execute(f"SELECT submission_id, message_id FROM message WHERE submission_id IN "
                                   f"({', '.join('?' * len(sids))}) ORDER BY rowid", tuple(sids)).fetchall()
        return {sid: message_id for sid, message_id in rows if message_id}

    def verdicts(self, sids: Sequence[int]) -> dict[int, str]:
        """The verdict of each submission in ``sids``."""
        if not sids:
            return {}
        with self._plain_read() as db:
            rows = db.conn.execute(f"SELECT id, verdict FROM submission WHERE id IN ({', '.join('?' * len(sids))})",
                                   tuple(sids)).fetchall()
        return {int(i): str(v) for i, v in rows}

    def submissions(self) -> list[SubmissionRecord]:
        from sqlmodel import select

        from pbem.tables import SubmissionRecord

        with self._read() as db:
            return list(db.exec(select(SubmissionRecord).order_by(SubmissionRecord.id)).all())  # type: ignore[arg-type]

    def submission_records(self) -> tuple[list[SubmissionRecord], list[MessageRecord], dict[int, str | None]]:
        """Every stored submission (in the order received), every mailbox message that carried
        one (none in a file older than the ``message`` table), and each step's deadline as it
        was when the step opened (step -> time or None): what :mod:`pbem.disputes` lists."""
        from sqlmodel import select

        from pbem.tables import MessageRecord, SnapshotRecord, SubmissionRecord

        with self._read() as db:
            subs = list(db.exec(select(SubmissionRecord).order_by(SubmissionRecord.id)).all())  # type: ignore[arg-type]
            messages = list(db.exec(select(MessageRecord)).all()) if self._has_message_table else []
            deadlines = {s.step: s.deadline for s in db.exec(select(SnapshotRecord)).all()}
        return subs, messages, deadlines

    def last_opened(self) -> str:
        """When the open step (or the end of the game) began: the last snapshot's time."""
        with self._plain_read() as db:
            found = db.conn.execute("SELECT created FROM snapshot ORDER BY step DESC LIMIT 1").fetchone()
        return found[0] if found is not None else ""

    def events(self, viewer: str = MODERATOR) -> list[tuple[int, int, Event]]:
        """(seq, step, event) for every event ``viewer`` (a side or ``moderator``) may see."""
        with self._plain_read() as db:
            rows = db.conn.execute("SELECT seq, step, kind, audience, text, data FROM event ORDER BY seq").fetchall()
        out = []
        for seq, step, kind, audience, text, data in rows:
            ev = _event_from(seq, kind, audience, text, data)
            if ev.visible_to(viewer):
                out.append((seq, step, ev))
        return out

    def outbox(self, *, recipient: str | None = None, fmt: str | None = None, kind: str | None = "report",
               step: int | None = None, unsent: bool = False) -> list[OutboxRow]:
        """The outbox's rows (by step, then as queued), their bodies read back (pbem.bodies): those of
        ``kind`` (None: every kind), and of ``recipient``, ``fmt``, ``step`` when given; ``unsent``: not
        sent yet."""
        where = ["sent IS NULL"] if unsent else []
        params: list[Any] = []
        for column, value in (("recipient", recipient), ("format", fmt), ("kind", kind), ("step", step)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        tail = (f"WHERE {' AND '.join(where)} " if where else "") + "ORDER BY step, id"
        with self._plain_read() as db:
            return read_outbox(db.conn, tail, tuple(params))

    def report(self, recipient: str, fmt: str = "text", step: int | None = None) -> OutboxRow:
        """The latest report for ``recipient`` (or the one sent when ``step`` opened)."""
        rows = self.outbox(recipient=recipient, fmt=fmt, step=step)
        if not rows:
            where = f" for step {step}" if step is not None else ""
            steps = sorted({r.step for r in self.outbox(recipient=recipient, fmt=fmt)})
            known = (f"there are reports for step{'s' if len(steps) > 1 else ''} {steps[0]}"
                     + (f" to {steps[-1]}" if len(steps) > 1 else "")
                     if steps else "`pbem status` shows the steps so far")
            raise StoreError(f"game {self.game_id} has no {fmt} report for {recipient}{where}; {known}")
        # A report shown leaves pbem as a mailed one does: one kept on demand is stored, so `pbem verify`
        # compares it and `pbem audit check --report` knows it (a file that cannot be written shows it all the same).
        try:
            return self.with_bodies(rows[-1:], store=True)[0]
        except StoreError:
            return self.with_bodies(rows[-1:])[0]

    @contextmanager
    def sending(self, ids: Sequence[int], when: str | None = None) -> Iterator[None]:
        """Mark outbox rows sent around their delivery: the mark is written first, inside a
        write transaction, and committed the moment the body returns (the server accepted the
        message); if the body raises (refused, the server went away) it is rolled back. A kill
        before the server's acceptance leaves the rows unsent (the server got no complete
        message); only a kill between the acceptance and the commit, a WAL append without an
        fsync, sends the message again (with the same Message-ID). Other writers wait for the
        one SMTP transaction (SQLite's busy timeout)."""
        with self._plain_write() as db:
            db.conn.execute(f"UPDATE outbox SET sent = ? WHERE sent IS NULL AND id IN ({', '.join('?' * len(ids))})",
                            (when or self._now(), *ids))
            yield

    def mark_sent(self, ids: Sequence[int], when: str | None = None) -> int:
        """Record outbox rows as sent (call it only after the mail server accepted them).
        Rows already marked keep their first time. Returns how many rows were marked."""
        if not ids:
            return 0
        # One small UPDATE and commit: in WAL mode with synchronous=NORMAL it costs no fsync, which
        # keeps the moment between the server's acceptance and this mark (a resend after a crash) short.
        with self._plain_write() as db:
            result = db.conn.execute(
                f"UPDATE outbox SET sent = ? WHERE sent IS NULL AND id IN ({', '.join('?' * len(ids))})",
                (when or self._now(), *ids))
        return int(result.rowcount)

    # -- deadlines
    def tick(self, now: datetime | None = None) -> list[str]:
        """Resolve the open step with defaults when its deadline has passed; queue reminders
        when less than a quarter of its time (at most a day) is left. Returns what was done."""
        now = now or self.clock()
        done: list[str] = []
        with self._plain_write() as db:
            adj, snap = self._current(db)
            step = adj.step()
            game = self._game_row
            due = self._deadline(db, snap)
            if due is None or step.over or not game.deadline_seconds:
                return done
            deadline = parse_time(due)
            if now >= deadline:
                missing = list(step.missing)
                events = adj.resolve(deadline=True)
                self._record_resolution(db, adj, events, Cause.DEADLINE, None, step.number,
                                        now.replace(microsecond=0))
                done.append(f"step {step.number} resolved at its deadline ({due}); defaults for "
                            f"{', '.join(missing) or 'nobody'}")
                _checkpoint("before-commit")
            else:
                lead = min(timedelta(days=1), timedelta(seconds=game.deadline_seconds) / 4)
                if now >= deadline - lead:
                    run = db.conn.execute
                    known = run("SELECT side, email, language FROM player").fetchall()
                    emails = {side: email for side, email, _language in known}
                    spoken = {side: language or "en" for side, _email, language in known}
                    for side in step.missing:
                        if run("SELECT 1 FROM outbox WHERE step = ? AND kind = 'reminder' AND recipient = ? LIMIT 1",
                               (step.number, side)).fetchone():
                            continue
                        language = spoken.get(side, "en")
                        queue_mail(db, step.number, side, emails.get(side, ""),
                                   reminder_subject(self.game_id, step.number, due, language),
                                   reminder_body(self.game_id, step.number, step.title, due, side, language),
                                   format_time(now), None, language, kind="reminder")
                        done.append(f"reminder queued for {side} (step {step.number}, due {snap.deadline})")
        try:
            self.render_pending()
            self.sync()
        except StorageError as exc:  # the resolution is committed: say so, not only that the write failed
            raise exc.told(self._committed([]), done) from exc
        return done

    # -- verification
    def audit_bundle(self, *, include_secret: bool | None = None) -> dict[str, Any]:
        """The audit bundle of this game (:mod:`pbem.bundle`): the secret only once the game is over
        (``include_secret`` overrides that, for tests of the full check on a short game)."""
        from pbem.bundle import export_bundle

        over = self.status().over if include_secret is None else include_secret
        with self._plain_read() as db:  # the rows are read plain (pbem.rows), as the audit reads them
            rows = read_game(db.conn)
        return export_bundle(rows.game, sorted(rows.players.values(), key=lambda p: p.side), rows.subs, rows.events,
                             [rows.snaps[k] for k in sorted(rows.snaps)], rows.reports, over)

    def verify(self, jobs: int | None = None) -> VerifyReport:
        """Replay every submission from the start and compare everything stored. ``jobs``: worker
        processes that render the reports again (None: one per core; see :func:`pbem.audit.verify`)."""
        from pbem import audit  # only here: the other commands need none of it

        with self._plain_read() as db:  # the rows are read plain (pbem.rows), in this read transaction
            return audit.verify_connection(db.conn, jobs=jobs)


def spread_absence(home: Home, game: str, sid: int, side: str, until: str) -> list[str]:
    """Carry ``side``'s ``away until`` of ``game`` (its submission ``sid``) to every other running game of
    ``home`` where the same player plays: a side registered with the same address (case ignored) or the
    same public key. Each gets it as a moderator action (``away``, origin ``GAME#SID``): in its hash
    chain, told to both sides, replayed by the audit. Done once per game (a game that has it already is
    skipped), so running it again after a crash finishes the work. Returns a line per game changed."""
    origin = f"{game}#{sid}"
    try:
        with home.open(game, recover=False) as st:
            me = next((p for p in st.players() if p.side == side), None)
    except (PbemError, OSError):
        return []
    if me is None or parse_time(until) <= home.clock():
        return []
    email = (me.email or "").casefold()
    done: list[str] = []
    for other in home.games():
        if other == game:
            continue
        try:
            with home.open(other) as st:
                mine = [p.side for p in st.players()
                        if (email and (p.email or "").casefold() == email) or (me.fingerprint and p.fingerprint == me.fingerprint)]
                if not mine or st.status().over or origin in st.absence_origins():
                    continue
                st.moderator_action("away", mine[0], until=until, origin=origin)
                done.append(f"{other}: {mine[0]} is away until {until} (declared in {game})")
        except (PbemError, OSError):  # a damaged or busy game: the next `pbem run` tries again
            continue
    return done


_EMAIL_RE = re.compile(r"[^@\s<>()\[\],;:\"]+@[^@\s<>()\[\],;:\"]+")


def _check_email(who: str, email: str) -> None:
    """One plain email address (``ann@example.org``, or ``Ann <ann@example.org>``), or empty.

    Read as a mail program reads a To: header, so what is stored is what the mail goes to: a
    group (``Bob: spy@evil.org <bob@good.org>``) or a list of addresses is refused."""
    if not email:
        return
    hint = "write one address like ann@example.org or Ann <ann@example.org> (or leave it out)"
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in email):
        raise StoreError(f"the email address for {who} is {email!r}; {hint}")
    try:
        header: Any = HeaderRegistry()("To", email)
        groups, defects = list(header.groups), list(header.defects)
    except (ValueError, IndexError, TypeError, AttributeError):  # the parser gives up on some broken input (":;0")
        raise StoreError(f"the email address for {who} is {email!r}; {hint}") from None
    addresses = [a for g in groups for a in g.addresses]
    if any(g.display_name is not None for g in groups):
        raise StoreError(f"the email address for {who} is {email!r}, a group of addresses (a name and ':' before "
                         f"them), and mail would go to {', '.join(a.addr_spec for a in addresses) or 'nobody'}; "
                         f"{hint}")
    if len(addresses) > 1:
        raise StoreError(f"the email address for {who} is {email!r}, {len(addresses)} addresses "
                         f"({', '.join(a.addr_spec for a in addresses)}); give one: {hint}")
    _name, parsed = parseaddr(email)
    if defects or len(addresses) != 1 or addresses[0].addr_spec != parsed or not _EMAIL_RE.fullmatch(parsed):
        raise StoreError(f"the email address for {who} is {email!r}; {hint}")


def _storage_error(path: Path, what: str, io: bool) -> StorageError:
    if io:
        return StorageError(f"cannot write {path}: an I/O error ({what}): the disk may be full, over a size limit "
                            "(quota, ulimit -f) or failing", io=True)
    return StorageError(f"cannot write {path}: the disk is full or the file is over a size limit ({what})")


def _os_error(path: Path, exc: OSError) -> StoreError:
    """An OSError while writing ``path``: a full disk is said so, anything else as it is."""
    if exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        return _storage_error(path, exc.strerror or str(exc), io=False)
    if exc.errno == errno.EIO:
        return _storage_error(path, exc.strerror or str(exc), io=True)
    return StoreError(f"cannot write {path}: {exc.strerror or exc}; check the file and its folder")


#: The ``message`` table as SQLModel creates it (:class:`pbem.tables.MessageRecord`; ``tests/test_rows.py``
#: holds the two together), for a file made before it (:meth:`Store._message_table`)
MESSAGE_TABLE = (
    "CREATE TABLE message (\n\tdigest VARCHAR NOT NULL, \n\tmessage_id VARCHAR NOT NULL, \n\tsubmission_id INTEGER NOT "
    "NULL, \n\treceived VARCHAR NOT NULL, \n\tPRIMARY KEY (digest)\n)",
    "CREATE INDEX ix_message_message_id ON message (message_id)",
)

#: The columns a decision writes into its submission's row (:func:`_write_decision`)
_DECISION = ("verdict", "side", "step", "digest", "reason", "errors", "related", "processed", "applied_step", "orders")


def _write_decision(run: queries.Run, row: SubmissionRow) -> None:
    """Write the decision columns of ``row`` (a received submission being decided) into its row."""
    run(f"UPDATE submission SET {', '.join(f'{c} = ?' for c in _DECISION)} WHERE id = ?",
        (*(getattr(row, c) for c in _DECISION), row.id))


def _insert_received(run: Callable[..., sqlite3.Cursor], raw: bytes, check: str | None, now: str, source: str) -> int:
    """Store a submission as received (undecided); its id."""
    sid = run("INSERT INTO submission (raw, password_check, received, source, verdict) VALUES (?, ?, ?, ?, ?)",
              (raw, check, now, source, Verdict.RECEIVED.value)).lastrowid
    assert isinstance(sid, int)
    return sid


def _store_message(run: queries.Run, key: MessageKey, sid: int, now: str) -> None:
    """Record that mailbox message ``key`` carried submission ``sid`` (table ``message``)."""
    run("INSERT INTO message (digest, message_id, submission_id, received) VALUES (?, ?, ?, ?)",
        (key.digest, key.message_id, sid, now))


def _digest_of(raw: bytes) -> str | None:
    """The submission digest of raw bytes (equal for the same signed orders), None if unreadable."""
    try:
        return submission_digest(parse_submission(raw))
    except (PbemError, ValueError):
        return None


def _db_error(path: Path, exc: BaseException) -> StoreError:
    """A database error (``sqlite3``'s, or SQLAlchemy's when it has none under it) as a message that
    names the file and what to do about it."""
    orig = getattr(exc, "orig", None)  # (SQLAlchemy's error: the driver's under it)
    if orig is not None:
        exc = orig
    what = str(exc).strip()
    low = what.lower()
    name = getattr(exc, "sqlite_errorname", "") if isinstance(exc, sqlite3.Error) else ""
    if name.startswith("SQLITE_FULL") or "database or disk is full" in low:
        return _storage_error(path, what, io=False)
    if name.startswith("SQLITE_IOERR") or "disk i/o error" in low:
        return _storage_error(path, what, io=True)
    if "readonly" in low or "read-only" in low or "unable to open" in low or "permission" in low:
        return StoreError(f"cannot write {path}: {what}; check the permissions of the file and its folder")
    if "locked" in low or "busy" in low:
        return StoreError(f"{path} is busy ({what}): another pbem process held it for more than "
                          f"{BUSY_TIMEOUT_SECONDS:.0f} s; try again")
    return StoreError(f"{path} is not a readable pbem game file ({what}); restore it from a backup, "
                      "or move it out of the game folder")


@dataclass(frozen=True)
class _Kept:
    """A state a submission was accepted into, and what it is made of (see :meth:`Store._keep`)."""

    session: str  # the snapshot it starts from
    sealed: queries.Sealed  # the orders replayed on it, these included
    adj: Adjudication  # never changed: copies are handed out


@dataclass(frozen=True)
class _OpenStep:
    """The latest snapshot's columns the pipeline reads: the open step, its state, its deadline."""

    step: int
    session: str
    deadline: str | None


class _Told(NamedTuple):
    """The columns of a submission its receipt tells (:meth:`Store.receipts`)."""

    id: int
    verdict: str
    side: str | None
    step: int | None
    reason: str | None
    errors: str | None
    related: int | None
    applied_step: int | None


@dataclass(frozen=True)
class _PendingReport:
    """An outbox report still to render: the columns :meth:`Store.render_pending` reads."""

    id: int
    step: int
    recipient: str
    format: str
    since_event: int
    upto_event: int
    language: str


def _event_from(seq: int, kind: str, audience: str, text: str, data: str) -> Event:
    try:
        return Event.from_json({"kind": kind, "audience": audience, "text": text, "data": json.loads(data)})
    except (ValueError, KeyError, TypeError) as exc:  # a hand-edited or damaged row
        raise StoreError(f"event #{seq} in the game file is damaged ({type(exc).__name__}: {str(exc)[:200]}); "
                         "`pbem verify` shows what differs; restore the file from a backup") from None


@cache
def _game_file_dialect() -> Any:
    """Register (once) and name the SQLAlchemy dialect of game files: SQLite through the standard
    library, as ``sqlite://`` gives, with one difference: every game file's engine compares equal, so
    the statements compiled for one game file serve every other one opened in the process
    (:func:`_compiled`). SQLAlchemy keys its cache of compiled statements by the dialect object, and
    each engine has its own: without this, a command that opens many games recompiled each query for
    each of them. Made when the ORM is first used (see :attr:`Store.engine`)."""
    from sqlalchemy.dialects import registry
    from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite

    class _GameFileDialect(SQLiteDialect_pysqlite):
        supports_statement_cache = True

        def __eq__(self, other: object) -> bool:
            return type(other) is _GameFileDialect

        def __hash__(self) -> int:
            return hash(_GameFileDialect)

    globals()["_GameFileDialect"] = _GameFileDialect  # (what the registry loads by name)
    registry.register("sqlite.pbem_game", __name__, "_GameFileDialect")
    return _GameFileDialect


@cache
def _compiled() -> Any:
    """The compiled statements, shared by every game file's engine (see :func:`_game_file_dialect`)."""
    from sqlalchemy.util import LRUCache

    return LRUCache(1000)


def _engine(path: Path, store: SqlFile) -> Any:
    from sqlalchemy import event
    from sqlmodel import create_engine

    from pbem.sqlfile import explicit_begin

    _game_file_dialect()
    engine = create_engine(f"sqlite+pbem_game:///{path}", connect_args={"timeout": BUSY_TIMEOUT_SECONDS},
                           execution_options={"compiled_cache": _compiled()})

    explicit_begin(engine, store)

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: Any, _record: Any) -> None:
        queries.prepare_connection(dbapi_conn)

    return engine


# ---- the folder of games --------------------------------------------------------------------


class Home:
    """A folder of game files (``<game id>.db``)."""

    SUFFIX = GAME_FILE_SUFFIX

    def __init__(self, path: str | Path, *, clock: Callable[[], datetime] = _utcnow) -> None:
        self.path = Path(path)
        self.clock = clock

    def file(self, game_id: str) -> Path:
        return self.path / f"{game_id}{self.SUFFIX}"

    def games(self) -> list[str]:
        return games_in(self.path)

    def open(self, game_id: str, *, recover: bool = True) -> Store:
        f = self.file(game_id)
        if not GAME_ID_RE.fullmatch(game_id) or not f.exists():
            known = ", ".join(self.games()) or "none"
            raise StoreError(f"no game {game_id!r} in {self.path} (games there: {known}); "
                             "create it with `pbem new` or pass the right --home")
        store = Store(f, clock=self.clock, recover=False)
        if store.game_id != game_id:  # a copied or renamed file: its submissions would go astray
            store.close()
            raise StoreError(f"{f} holds game {store.game_id!r}, not {game_id!r}; a game file must be named "
                             f"after its game: rename it to {store.game_id}{self.SUFFIX}, or move a copy "
                             "out of the game folder")
        if recover:
            store.recover()
        return store

    def create(self, setup: GameSetup) -> Store:
        """Create a game file: set-up, players, the first snapshot and its reports."""
        from sqlalchemy.exc import DBAPIError
        from sqlmodel import Session, SQLModel, create_engine

        from pbem.tables import (
            EventRecord,
            GameRecord,
            MessageRecord,
            OutboxRecord,
            PlayerRecord,
            SnapshotRecord,
            SubmissionRecord,
        )

        gid = setup.game_id
        if not GAME_ID_RE.fullmatch(gid):
            raise StoreError(f"{gid!r} is not a usable game id; use 1 to 100 letters, digits, '.', '_' or '-', "
                             "starting with a letter or digit")
        system = find_game(setup.system)
        sides = sorted(p.side for p in setup.players)
        if sides != sorted(system.sides):
            raise StoreError(f"register exactly one player for each side ({' and '.join(system.sides)}); "
                             f"got {', '.join(sides) or 'none'}")
        try:
            options = option_values(system.options, setup.options)
        except ValueError as exc:
            raise StoreError(str(exc)) from None
        for p in setup.players:
            if (p.public_key is None) == (p.password_hash is None):
                raise StoreError(f"{p.side} needs exactly one credential: a public key or a password")
            if p.public_key is not None:
                key_fingerprint(p.public_key)  # raises a KeyFormatError saying what is wrong
        keys = [key_fingerprint(p.public_key) for p in setup.players if p.public_key is not None]
        if len(set(keys)) != len(keys):
            raise StoreError(f"{' and '.join(system.sides)} were given the same public key; each player needs his "
                             "own key pair (`pbem keygen`), or either could sign orders for the other")
        for who, email in [(p.side, p.email) for p in setup.players] + [("the moderator", setup.moderator_email)]:
            _check_email(who, email)
        target = self.file(gid)
        if target.exists():
            raise StoreError(f"game {gid!r} already exists ({target}); choose another id")
        self.path.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        _unlink_db(tmp)
        now = format_time(self.clock())
        secret = secrets.token_bytes(SECRET_BYTES) if setup.seed is None else None
        seed = setup.seed or 0
        if not 0 <= seed < 2**63:  # stored as a 64-bit SQLite integer
            raise StoreError(f"the seed {seed} is out of range; use a whole number from 0 to {2**63 - 1}")
        scenario = canonical_json(setup.scenario) if setup.scenario is not None else None
        record = GameRecord(id=gid, system=system.name, seed=seed, options=canonical_json(options), settings="{}",
                            scenario=scenario,
                            deadline_seconds=int(setup.deadline.total_seconds()) if setup.deadline else None,
                            moderator_email=setup.moderator_email, created=now, header_hash="",
                            commitment=commitment_of(secret) if secret is not None else None,
                            secret=secret.hex() if secret is not None else None)
        record.header_hash = header_hash(record)
        try:  # on any failure no half-made file stays behind
            engine = create_engine(f"sqlite:///{tmp}")
            try:
                tables = (GameRecord, PlayerRecord, SubmissionRecord, EventRecord, SnapshotRecord, OutboxRecord,
                          MessageRecord)
                SQLModel.metadata.create_all(engine, tables=[t.__table__ for t in tables])  # type: ignore[union-attr]
                with Session(engine, expire_on_commit=False) as db:
                    db.add(record)
                    for p in setup.players:
                        db.add(PlayerRecord(side=p.side, email=p.email, public_key=p.public_key,
                                            password_hash=p.password_hash, language=p.language,
                                            fingerprint=key_fingerprint(p.public_key) if p.public_key else None))
                    db.commit()
            finally:
                engine.dispose()
            store = Store(tmp, clock=self.clock, recover=False)
            try:
                with store._plain_write() as db:
                    adj0, opening = initial_adjudication(record)  # opening: the deal, "Year begins", ...
                    store._record_resolution(db, adj0, opening, Cause.NEW, None, 0, self.clock())
            finally:
                store.close()
        except (DBAPIError, StorageError) as exc:
            _unlink_db(tmp)
            err = _db_error(target, exc) if isinstance(exc, DBAPIError) else exc
            if isinstance(err, StorageError):
                cause = exc if isinstance(exc, DBAPIError) else exc.__cause__
                raise StoreError(f"cannot create {target}: the disk is full, over a size limit or failing "
                                   f"({getattr(cause, 'orig', cause)}); nothing was created: free some space and "
                                   "run `pbem new` again") from exc
            raise err from exc
        except BaseException:
            _unlink_db(tmp)
            raise
        meanwhile = StoreError(f"game {gid!r} was created meanwhile by someone else; choose another id")
        try:  # a hard link never replaces an existing file: two `pbem new` for one id cannot both win
            os.link(tmp, target)
        except FileExistsError:
            _unlink_db(tmp)
            raise meanwhile from None
        except OSError:  # a file system without hard links
            if target.exists():
                _unlink_db(tmp)
                raise meanwhile from None
            os.replace(tmp, target)
        else:
            _unlink_db(tmp)
        return Store(target, clock=self.clock)

    def route(self, raw: bytes) -> str:
        """The game a submission is addressed to (read from its envelope)."""
        try:
            return parse_submission(raw).envelope.game
        except EnvelopeError as exc:
            from pbem.plainreply import plain_reply_game

            named = plain_reply_game(raw)
            if named is not None:
                return named
            raise StoreError(f"cannot tell which game this submission is for: {exc}. Nothing was stored; "
                             "fix it, or give the game (--game) to record the rejection") from None

    def receive(self, raw: bytes, source: str = "", game: str | None = None) -> Receipt:
        gid = game or self.route(raw)
        with self.open(gid) as store:
            return store.receive(raw, source)

    def tick(self, now: datetime | None = None) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for gid in self.games():
            with self.open(gid) as store:
                out[gid] = store.tick(now)
        return out


def _unlink_db(path: Path) -> None:
    """Remove a database file with its write-ahead log and shared-memory index."""
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        p.unlink(missing_ok=True)


def signer_elsewhere(home: Path, game: str, raw: bytes) -> tuple[str, str, str] | None:
    """The game of the same home folder, other than ``game``, the side and the registered address
    whose public key made the signature of ``raw``; None when no registered key did (a forgery, a
    password, an unreadable submission). Only for answering the signer: nothing of it is stored."""
    from pbem.envelope import verify_signature

    try:
        sub = parse_submission(raw)
    except EnvelopeError:
        return None
    if sub.signature is None:
        return None
    folder = Home(home)
    for other in folder.games():
        if other == game:
            continue
        try:
            with folder.open(other, recover=False) as st:
                players = st.players()
        except (PbemError, OSError):  # a damaged or busy file: it cannot be that game
            continue
        for p in players:
            if not p.public_key:
                continue
            try:
                verify_signature(sub, p.public_key)
            except EnvelopeError:
                continue
            return (other, p.side, p.email) if p.email else None
    return None
