"""Storage and the step pipeline: one SQLite file per game, many games in a folder.

The tables (SQLModel) hold everything a game is made of, and nothing else:

* ``game``: id, seed, engine options, step settings, the custom starting position
  (if any), the deadline per step, and the hash that starts the event chain;
* ``player``: per side the email and the credential (public key text, or an
  scrypt password hash, never the password) with the key's fingerprint;
* ``submission``: every submission exactly as received (bytes), with its verdict;
* ``event``: the append-only event log, hash-chained;
* ``snapshot``: the whole adjudication state (a :class:`~pbem.caesar.steps.Session`)
  each time a step opens, with its hash and its deadline;
* ``outbox``: the reports (and reminders) to send, per step, recipient and format.

The pipeline (:meth:`Store.receive`): the raw bytes are stored first, in their own
commit; then each received submission is decided in one ``BEGIN IMMEDIATE``
transaction, lowest id first: parse, authenticate, recognise a resend, check the
addressing, check the orders, accept (a revision supersedes the side's earlier
submission) and, when the step resolves, append the events, write the new snapshot
and queue the reports with no body. A render pass then fills every report whose
body is missing. Every :class:`Store` finishes such unfinished work when it is
opened, so a crash at any point loses nothing and rerunning finishes the work
exactly once; two processes cannot both resolve a step because each decision
re-reads the state under SQLite's write lock.

:meth:`Store.verify` replays every stored submission from the starting position
through the same decision function and checks each snapshot, each event and the
hash chain, and each rendered report byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from enum import Enum
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from sqlalchemy import Column, LargeBinary, Text, UniqueConstraint, event
from sqlmodel import Field, Session as DbSession, SQLModel, create_engine, select

from pbem.caesar.board import Side
from pbem.caesar.choices import Event
from pbem.caesar.game import Game, new_game
from pbem.caesar.state import Options
from pbem.caesar.steps import BattleMode, Session, Settings, StepKind, SubmissionRejected, order_templates
from pbem.envelope import (
    authenticate,
    check_addressing,
    key_fingerprint,
    parse_submission,
    submission_digest,
)
from pbem.errors import EnvelopeError, PbemError

__all__ = [
    "GameSetup",
    "Home",
    "PlayerSetup",
    "Receipt",
    "Status",
    "Store",
    "StoreError",
    "Verdict",
    "VerifyReport",
    "parse_duration",
]

SCHEMA = "pbem-store 1"
MODERATOR = "moderator"
RECIPIENTS: tuple[str, ...] = (Side.CAESAR.value, Side.POMPEY.value, MODERATOR)
FORMATS: tuple[str, ...] = ("text", "html")
GENESIS = "0" * 64
BUSY_TIMEOUT_SECONDS = 60.0
_GAME_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_DURATION_RE = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?")
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


class StoreError(PbemError):
    """A problem with the game folder or a game file that the user can fix."""


class Verdict(str, Enum):
    RECEIVED = "received"  # stored, not decided yet
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    DUPLICATE = "duplicate"  # an exact resend of an accepted submission: nothing changed
    SUPERSEDED = "superseded"  # accepted, then replaced by a revision before the step resolved


class Cause(str, Enum):
    NEW = "new"
    SUBMISSION = "submission"
    DEADLINE = "deadline"


# ---- tables --------------------------------------------------------------------------


class GameRecord(SQLModel, table=True):
    __tablename__ = "game"

    id: str = Field(primary_key=True)
    schema_version: str = SCHEMA
    seed: int
    options: str  # JSON: engine options (free deployment, tournament)
    settings: str  # JSON: step settings (battles planned|interactive)
    scenario: str | None = Field(default=None, sa_column=Column(Text, nullable=True))  # starting position JSON
    deadline_seconds: int | None = None
    moderator_email: str = ""
    created: str
    header_hash: str  # sha256 of the canonical set-up: the first event's prev_hash


class PlayerRecord(SQLModel, table=True):
    __tablename__ = "player"

    side: str = Field(primary_key=True)
    email: str = ""
    public_key: str | None = None
    password_hash: str | None = None
    fingerprint: str | None = None


class SubmissionRecord(SQLModel, table=True):
    __tablename__ = "submission"

    id: int | None = Field(default=None, primary_key=True)
    raw: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    received: str
    source: str = ""
    side: str | None = None  # as claimed in the envelope
    step: int | None = None  # as claimed in the envelope
    digest: str | None = Field(default=None, index=True)
    verdict: str = Field(default=Verdict.RECEIVED.value, index=True)
    reason: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    errors: str | None = Field(default=None, sa_column=Column(Text, nullable=True))  # JSON list
    applied_step: int | None = None  # the step it was accepted for
    orders: str | None = Field(default=None, sa_column=Column(Text, nullable=True))  # accepted order text
    related: int | None = None  # duplicate of / superseded by this submission id
    processed: str | None = None


class EventRecord(SQLModel, table=True):
    __tablename__ = "event"

    seq: int = Field(primary_key=True)  # 1, 2, 3, ...
    step: int  # the step whose resolution produced it
    audience: str
    kind: str
    text: str = Field(sa_column=Column(Text, nullable=False))
    data: str = Field(sa_column=Column(Text, nullable=False))  # canonical JSON
    prev_hash: str
    hash: str


class SnapshotRecord(SQLModel, table=True):
    __tablename__ = "snapshot"

    step: int = Field(primary_key=True)  # the step that opened
    session: str = Field(sa_column=Column(Text, nullable=False))  # canonical JSON of the Session
    hash: str
    last_event: int  # events 1..last_event happened before this step opened
    cause: str  # new | submission | deadline
    submission_id: int | None = None  # the submission that resolved the previous step
    after_submission: int = 0  # every submission id up to this one was decided before
    deadline: str | None = None
    created: str


class OutboxRecord(SQLModel, table=True):
    __tablename__ = "outbox"
    __table_args__ = (UniqueConstraint("step", "kind", "recipient", "format"),)

    id: int | None = Field(default=None, primary_key=True)
    step: int
    kind: str = "report"  # report | reminder
    recipient: str  # Caesar | Pompey | moderator
    email: str = ""
    format: str  # text | html
    subject: str
    body: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    since_event: int = 0  # events before this index were in the recipient's earlier reports
    upto_event: int = 0
    created: str
    sent: str | None = None


# ---- values ----------------------------------------------------------------------------


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def event_hash(seq: int, step: int, ev: dict[str, Any], prev_hash: str) -> str:
    return sha256_text(canonical_json({"seq": seq, "step": step, "event": ev, "prev": prev_hash}))


def format_time(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime(_TIME_FORMAT)


def parse_time(text: str) -> datetime:
    """``2025-03-01T18:30:00Z`` (or any ISO 8601 time; naive means UTC)."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise StoreError(f"{text!r} is not a time; write it like 2025-03-01T18:30:00Z") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment


def parse_duration(text: str) -> timedelta:
    """``"72h"``, ``"3d"``, ``"1d12h"``, ``"90m"`` -> a timedelta."""
    m = _DURATION_RE.fullmatch(text.strip())
    if not text.strip() or m is None or not any(m.groups()):
        raise StoreError(f"{text!r} is not a duration; write it like 72h, 3d, 1d12h or 90m")
    d, h, mins = (int(g) if g else 0 for g in m.groups())
    delta = timedelta(days=d, hours=h, minutes=mins)
    if delta <= timedelta(0):
        raise StoreError(f"the deadline {text!r} must be longer than zero")
    return delta


def format_duration(seconds: int) -> str:
    d, rest = divmod(seconds, 86400)
    h, rest = divmod(rest, 3600)
    m = rest // 60
    return "".join(f"{v}{u}" for v, u in ((d, "d"), (h, "h"), (m, "m")) if v) or "0m"


def _checkpoint(name: str) -> None:
    """A named point of the pipeline; tests replace this to kill the process there."""


def _utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


@dataclass(frozen=True)
class PlayerSetup:
    side: Side
    email: str = ""
    public_key: str | None = None  # "pbem-ed25519 ..." line
    password_hash: str | None = None  # from pbem.envelope.hash_password


@dataclass(frozen=True)
class GameSetup:
    game_id: str
    players: tuple[PlayerSetup, ...]
    seed: int = 0
    options: Options = field(default_factory=Options)
    settings: Settings = field(default_factory=Settings)
    scenario: Game | None = None  # a custom starting position
    deadline: timedelta | None = None
    moderator_email: str = ""


@dataclass(frozen=True)
class Receipt:
    """What happened to one submission."""

    game: str
    submission: int
    verdict: Verdict
    side: str | None
    step: int | None
    reason: str = ""
    errors: tuple[dict[str, Any], ...] = ()
    related: int | None = None
    resolved: bool = False  # this submission resolved its step
    next_step: int | None = None
    next_title: str = ""
    waiting_for: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "submission": self.submission,
            "verdict": self.verdict.value,
            "side": self.side,
            "step": self.step,
            "reason": self.reason,
            "errors": list(self.errors),
            "related": self.related,
            "resolved": self.resolved,
            "next_step": self.next_step,
            "next_title": self.next_title,
            "waiting_for": list(self.waiting_for),
        }


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
    year: int
    turn: int

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
            "year": self.year,
            "turn": self.turn,
        }


@dataclass
class VerifyReport:
    game: str
    steps: int = 0
    submissions: int = 0
    events: int = 0
    reports: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


# ---- deciding one submission (pure: used live and by verify) ------------------------------


@dataclass
class _Outcome:
    verdict: Verdict
    side: str | None = None
    step: int | None = None
    digest: str | None = None
    reason: str = ""
    errors: list[dict[str, Any]] = field(default_factory=list)
    orders: str | None = None
    related: int | None = None
    events: list[Event] = field(default_factory=list)
    resolved_step: int | None = None  # the step this acceptance resolved


def _decide(
    session: Session,
    game_id: str,
    players: dict[str, PlayerRecord],
    raw: bytes,
    accepted_digests: dict[str, int],
) -> _Outcome:
    """Decide a submission against ``session`` (changed in place when accepted)."""
    try:
        sub = parse_submission(raw)
    except EnvelopeError as exc:
        return _Outcome(Verdict.REJECTED, reason=f"cannot read the submission: {exc}")
    env = sub.envelope
    out = _Outcome(Verdict.REJECTED, side=env.side, step=env.step, digest=submission_digest(sub))
    player = players.get(env.side)
    try:
        authenticate(
            sub,
            public_key=player.public_key if player else None,
            password_hash=player.password_hash if player else None,
        )
    except EnvelopeError as exc:
        out.reason = str(exc)
        return out
    assert player is not None
    earlier = accepted_digests.get(out.digest or "")
    if earlier is not None:
        out.verdict = Verdict.DUPLICATE
        out.related = earlier
        out.reason = f"an exact resend of submission #{earlier}; nothing changed"
        return out
    try:
        check_addressing(sub, game=game_id, side=player.side, step=session.step_no)
    except EnvelopeError as exc:
        out.reason = str(exc)
        return out
    side = Side(player.side)
    text = "\n".join(env.orders)
    step = session.step_no
    backup = session.to_json()
    try:
        session.check(side, text)
        out.events = session.submit(side, text)
    except SubmissionRejected as exc:
        out.reason = f"{len(exc.errors)} error(s); nothing was applied"
        out.errors = [{"line": e.lineno, "text": e.text, "message": e.message} for e in exc.errors]
        return out
    except Exception as exc:  # noqa: BLE001 - an engine bug must not stop the game's other work
        restored = Session.from_json(backup)
        session.__dict__.update(restored.__dict__)
        out.reason = (f"the adjudicator failed on these orders and changed nothing (a bug; tell the "
                      f"moderator): {type(exc).__name__}: {exc}")
        return out
    out.verdict = Verdict.ACCEPTED
    out.orders = text
    if session.step_no != step:
        out.resolved_step = step
    return out


def _events_json(events: Sequence[Event]) -> list[dict[str, Any]]:
    return [json.loads(canonical_json(e.to_json())) for e in events]


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    """Where two JSON values first differ, as ``path: stored X, replayed Y``."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b or a[k] != b[k]:
                if k not in a or k not in b:
                    return f"{path}{k}: {'missing' if k not in a else 'present'} in the stored copy"
                return _first_difference(a[k], b[k], f"{path}{k}.")
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}{i}.")
        if len(a) != len(b):
            return f"{path.rstrip('.')}: {len(a)} items stored, {len(b)} replayed"
    shown = (lambda v: json.dumps(v, ensure_ascii=False)[:120])
    return f"{path.rstrip('.') or 'value'}: stored {shown(a)}, replayed {shown(b)}"


# ---- rendering (pure) ----------------------------------------------------------------------


def _render_report(
    session_json: str, events: Sequence[Event], row: OutboxRecord, deadline: str | None
) -> str:
    try:
        from pbem.caesar.views import NextStep, build_view
        from pbem.reports import render_html, render_text
    except ImportError as exc:  # pragma: no cover - only while the report module is missing
        raise StoreError(f"reports cannot be rendered: {exc}; install the complete pbem package") from exc
    session = Session.from_json(json.loads(session_json))
    viewer = None if row.recipient == MODERATOR else Side(row.recipient)
    step = session.step()
    next_step = None
    if step.kind is not StepKind.OVER:
        next_step = NextStep(
            number=step.number,
            title=step.title,
            deadline=deadline,
            awaiting=tuple(s.value for s in step.awaiting),
            templates=tuple(order_templates(session, viewer)) if viewer else (),
        )
    view = build_view(session.game, list(events[: row.upto_event]), viewer, since=row.since_event, next_step=next_step)
    return render_html(view) if row.format == "html" else render_text(view)


def _reminder_body(game_id: str, step: int, title: str, deadline: str, side: str) -> str:
    return (
        f"Game {game_id}, step {step}: {title}.\n"
        f"The step waits for your orders, {side}. The deadline is {deadline};\n"
        "after it the published defaults are applied for you (no moves, no levies,\n"
        "the lowest-Moves card). Your last report lists what you can send.\n"
    )


def _subject(game_id: str, step: int, title: str) -> str:
    return f"[{game_id}] step {step}: {title}"


# ---- one game file -------------------------------------------------------------------------


class Store:
    """One game's SQLite file. Opening it finishes any unfinished work."""

    def __init__(self, path: Path, *, clock: Callable[[], datetime] = _utcnow, recover: bool = True) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise StoreError(f"no game file {self.path}")
        self.clock = clock
        self._immediate = False
        self.engine = _engine(self.path, self)
        with self._read() as db:
            game = db.exec(select(GameRecord)).first()
        if game is None:
            raise StoreError(f"{self.path} is not a pbem game file (no game record)")
        self.game_id = game.id
        if recover:
            self.recover()

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions
    @contextmanager
    def _tx(self, immediate: bool) -> Iterator[DbSession]:
        self._immediate = immediate
        with DbSession(self.engine, expire_on_commit=False) as db:
            try:
                yield db
                db.commit()
            except BaseException:
                db.rollback()
                raise
            finally:
                self._immediate = False

    def _write(self) -> Any:
        return self._tx(True)

    def _read(self) -> Any:
        return self._tx(False)

    def _now(self) -> str:
        return format_time(self.clock())

    # -- the pipeline
    def recover(self) -> None:
        """Finish unfinished work: decide received submissions, render missing reports."""
        self.process_pending()
        self.render_pending()

    def receive(self, raw: bytes, source: str = "") -> Receipt:
        """Store ``raw`` exactly as received (its own commit), then decide and report."""
        self.recover()
        with self._write() as db:
            row = SubmissionRecord(raw=bytes(raw), received=self._now(), source=source)
            db.add(row)
            db.flush()
            sid = row.id
        assert sid is not None
        _checkpoint("received")
        self.process_pending()
        self.render_pending()
        return self.receipt(sid)

    def process_pending(self) -> int:
        """Decide every received submission, lowest id first, one transaction each."""
        done = 0
        while self._process_next():
            done += 1
            _checkpoint("after-commit")
        return done

    def _process_next(self) -> bool:
        with self._write() as db:
            row = db.exec(
                select(SubmissionRecord)
                .where(SubmissionRecord.verdict == Verdict.RECEIVED.value)
                .order_by(SubmissionRecord.id)  # type: ignore[arg-type]
            ).first()
            if row is None:
                return False
            session, snap = self._session(db)
            players = {p.side: p for p in db.exec(select(PlayerRecord)).all()}
            digests = self._accepted_digests(db)
            out = _decide(session, self.game_id, players, row.raw, digests)
            self._store_outcome(db, row, out, snap, session)
            return True

    def _store_outcome(
        self, db: DbSession, row: SubmissionRecord, out: _Outcome, snap: SnapshotRecord, session: Session
    ) -> None:
        row.verdict = out.verdict.value
        row.side, row.step, row.digest = out.side, out.step, out.digest
        row.reason = out.reason
        row.errors = canonical_json(out.errors) if out.errors else None
        row.related = out.related
        row.processed = self._now()
        if out.verdict is Verdict.ACCEPTED:
            row.applied_step = snap.step
            row.orders = out.orders
            earlier = db.exec(
                select(SubmissionRecord).where(
                    SubmissionRecord.verdict == Verdict.ACCEPTED.value,
                    SubmissionRecord.applied_step == snap.step,
                    SubmissionRecord.side == out.side,
                    SubmissionRecord.id != row.id,
                )
            ).all()
            for e in earlier:
                e.verdict = Verdict.SUPERSEDED.value
                e.related = row.id
                e.reason = f"replaced by submission #{row.id}"
                db.add(e)
                row.related = e.id  # the submission this revision replaces
        db.add(row)
        db.flush()
        if out.resolved_step is not None:
            self._record_resolution(db, session, out.events, Cause.SUBMISSION, row.id, out.resolved_step, self.clock())
        _checkpoint("before-commit")

    def _record_resolution(
        self, db: DbSession, session: Session, events: Sequence[Event], cause: Cause, sid: int | None, resolved: int,
        now: datetime,
    ) -> None:
        game = db.exec(select(GameRecord)).one()
        head = db.exec(select(EventRecord).order_by(EventRecord.seq.desc())).first()  # type: ignore[attr-defined]
        prev, seq = (head.hash, head.seq) if head else (game.header_hash, 0)
        for ev in _events_json(events):
            seq += 1
            h = event_hash(seq, resolved, ev, prev)
            db.add(EventRecord(seq=seq, step=resolved, audience=ev["audience"], kind=ev["kind"], text=ev["text"],
                               data=canonical_json(ev["data"]), prev_hash=prev, hash=h))
            prev = h
        last_sub = db.exec(
            select(SubmissionRecord.id)
            .where(SubmissionRecord.verdict != Verdict.RECEIVED.value)
            .order_by(SubmissionRecord.id.desc())  # type: ignore[union-attr]
        ).first()
        self._add_snapshot(db, game, session, seq, cause, sid, last_sub or 0, now)

    def _add_snapshot(
        self, db: DbSession, game: GameRecord, session: Session, last_event: int, cause: Cause, sid: int | None,
        after: int, now: datetime,
    ) -> None:
        text = canonical_json(session.to_json())
        step = session.step()
        deadline = None
        if game.deadline_seconds and step.kind is not StepKind.OVER:
            deadline = format_time(now + timedelta(seconds=game.deadline_seconds))
        db.add(SnapshotRecord(step=session.step_no, session=text, hash=sha256_text(text), last_event=last_event,
                              cause=cause.value, submission_id=sid, after_submission=after, deadline=deadline,
                              created=format_time(now)))
        emails = {p.side: p.email for p in db.exec(select(PlayerRecord)).all()}
        emails[MODERATOR] = game.moderator_email
        for recipient in RECIPIENTS:
            for fmt in FORMATS:
                since = db.exec(
                    select(OutboxRecord.upto_event)
                    .where(OutboxRecord.recipient == recipient, OutboxRecord.format == fmt,
                           OutboxRecord.kind == "report")
                    .order_by(OutboxRecord.step.desc())  # type: ignore[attr-defined]
                ).first()
                db.add(OutboxRecord(step=session.step_no, recipient=recipient, email=emails.get(recipient, ""),
                                    format=fmt, subject=_subject(game.id, session.step_no, step.title),
                                    since_event=since or 0, upto_event=last_event, created=format_time(now)))

    def render_pending(self) -> int:
        """Fill every report whose body is missing (deterministic: from the stored log).

        Each report is rendered under the write lock, so processes that recover at the
        same time neither store a report twice nor render it twice."""
        done = 0
        while True:
            with self._write() as db:
                row = db.exec(
                    select(OutboxRecord).where(OutboxRecord.body.is_(None)).order_by(OutboxRecord.id)  # type: ignore[union-attr,arg-type]
                ).first()
                if row is None:
                    return done
                snap = db.get(SnapshotRecord, row.step)
                assert snap is not None, f"outbox row {row.id} names step {row.step} with no snapshot"
                row.body = _render_report(snap.session, self._events(db, upto=row.upto_event), row, snap.deadline)
                db.add(row)
            done += 1
            _checkpoint("rendered")

    # -- reading state
    def _session(self, db: DbSession) -> tuple[Session, SnapshotRecord]:
        snap = db.exec(select(SnapshotRecord).order_by(SnapshotRecord.step.desc())).first()  # type: ignore[attr-defined]
        if snap is None:
            raise StoreError(f"{self.path} has no snapshot; the file is damaged")
        session = Session.from_json(json.loads(snap.session))
        for p in db.exec(
            select(SubmissionRecord)
            .where(SubmissionRecord.verdict == Verdict.ACCEPTED.value, SubmissionRecord.applied_step == snap.step)
            .order_by(SubmissionRecord.id)  # type: ignore[arg-type]
        ).all():
            session.submit(Side(p.side or ""), p.orders or "")
        return session, snap

    def _accepted_digests(self, db: DbSession) -> dict[str, int]:
        rows = db.exec(
            select(SubmissionRecord).where(
                SubmissionRecord.verdict.in_([Verdict.ACCEPTED.value, Verdict.SUPERSEDED.value])  # type: ignore[attr-defined]
            )
        ).all()
        return {r.digest: r.id for r in rows if r.digest and r.id is not None}

    def _events(self, db: DbSession, upto: int | None = None) -> list[Event]:
        q = select(EventRecord).order_by(EventRecord.seq)  # type: ignore[arg-type]
        if upto is not None:
            q = q.where(EventRecord.seq <= upto)
        return [_event_of(r) for r in db.exec(q).all()]

    def game(self) -> GameRecord:
        with self._read() as db:
            return db.exec(select(GameRecord)).one()

    def players(self) -> list[PlayerRecord]:
        with self._read() as db:
            return list(db.exec(select(PlayerRecord).order_by(PlayerRecord.side)).all())

    def session(self) -> Session:
        """The current adjudication state (sealed orders of the open step included)."""
        with self._read() as db:
            return self._session(db)[0]

    def status(self, now: datetime | None = None) -> Status:
        with self._read() as db:
            session, snap = self._session(db)
        step = session.step()
        now = now or self.clock()
        overdue = bool(snap.deadline and step.kind is not StepKind.OVER and now >= parse_time(snap.deadline))
        st = session.game.state
        return Status(
            game=self.game_id,
            step=step.number,
            kind=step.kind.value,
            title=step.title,
            awaiting=tuple(s.value for s in step.awaiting),
            received=tuple(s.value for s in step.awaiting if s in session.sealed),
            deadline=snap.deadline if step.kind is not StepKind.OVER else None,
            overdue=overdue,
            over=step.kind is StepKind.OVER,
            year=st.year,
            turn=st.turn,
        )

    def receipt(self, sid: int) -> Receipt:
        with self._read() as db:
            row = db.get(SubmissionRecord, sid)
            if row is None:
                raise StoreError(f"game {self.game_id} has no submission #{sid}")
            resolved = db.exec(select(SnapshotRecord).where(SnapshotRecord.submission_id == sid)).first()
            session, snap = self._session(db)
        step = session.step()
        waiting: tuple[str, ...] = ()
        if row.verdict == Verdict.ACCEPTED.value and resolved is None and snap.step == row.applied_step:
            waiting = tuple(s.value for s in step.awaiting if s not in session.sealed)
        next_step, next_title = None, ""
        if resolved is not None:
            nxt = Session.from_json(json.loads(resolved.session)).step()
            next_step, next_title = nxt.number, nxt.title
        return Receipt(
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
            waiting_for=waiting,
        )

    def submissions(self) -> list[SubmissionRecord]:
        with self._read() as db:
            return list(db.exec(select(SubmissionRecord).order_by(SubmissionRecord.id)).all())  # type: ignore[arg-type]

    def events(self, viewer: str = MODERATOR) -> list[tuple[int, int, Event]]:
        """(seq, step, event) for every event ``viewer`` (a side or ``moderator``) may see."""
        who = None if viewer == MODERATOR else Side(viewer)
        with self._read() as db:
            rows = db.exec(select(EventRecord).order_by(EventRecord.seq)).all()  # type: ignore[arg-type]
        out = []
        for r in rows:
            ev = _event_of(r)
            if ev.audience.sees(who):
                out.append((r.seq, r.step, ev))
        return out

    def outbox(self, *, recipient: str | None = None, fmt: str | None = None, kind: str | None = "report",
               step: int | None = None) -> list[OutboxRecord]:
        q = select(OutboxRecord).order_by(OutboxRecord.step, OutboxRecord.id)  # type: ignore[arg-type]
        if recipient is not None:
            q = q.where(OutboxRecord.recipient == recipient)
        if fmt is not None:
            q = q.where(OutboxRecord.format == fmt)
        if kind is not None:
            q = q.where(OutboxRecord.kind == kind)
        if step is not None:
            q = q.where(OutboxRecord.step == step)
        with self._read() as db:
            return list(db.exec(q).all())

    def report(self, recipient: str, fmt: str = "text", step: int | None = None) -> OutboxRecord:
        """The latest report for ``recipient`` (or the one sent when ``step`` opened)."""
        rows = self.outbox(recipient=recipient, fmt=fmt, step=step)
        if not rows:
            where = f" for step {step}" if step is not None else ""
            raise StoreError(f"game {self.game_id} has no {fmt} report for {recipient}{where}; "
                             "`pbem status` shows the steps so far")
        return rows[-1]

    # -- deadlines
    def tick(self, now: datetime | None = None) -> list[str]:
        """Resolve the open step with defaults when its deadline has passed; queue reminders
        when less than a quarter of its time (at most a day) is left. Returns what was done."""
        now = now or self.clock()
        done: list[str] = []
        with self._write() as db:
            session, snap = self._session(db)
            step = session.step()
            game = db.exec(select(GameRecord)).one()
            if snap.deadline is None or step.kind is StepKind.OVER or not game.deadline_seconds:
                return done
            deadline = parse_time(snap.deadline)
            if now >= deadline:
                missing = [s.value for s in step.awaiting if s not in session.sealed]
                events = session.resolve(deadline=True)
                self._record_resolution(db, session, events, Cause.DEADLINE, None, step.number,
                                        now.replace(microsecond=0))
                done.append(f"step {step.number} resolved at its deadline ({snap.deadline}); defaults for "
                            f"{', '.join(missing) or 'nobody'}")
                _checkpoint("before-commit")
            else:
                lead = min(timedelta(days=1), timedelta(seconds=game.deadline_seconds) / 4)
                if now >= deadline - lead:
                    emails = {p.side: p.email for p in db.exec(select(PlayerRecord)).all()}
                    for side in step.awaiting:
                        if side in session.sealed:
                            continue
                        exists = db.exec(select(OutboxRecord).where(
                            OutboxRecord.step == step.number, OutboxRecord.kind == "reminder",
                            OutboxRecord.recipient == side.value)).first()
                        if exists:
                            continue
                        db.add(OutboxRecord(step=step.number, kind="reminder", recipient=side.value,
                                            email=emails.get(side.value, ""), format="text",
                                            subject=f"[{self.game_id}] reminder: step {step.number} is due {snap.deadline}",
                                            body=_reminder_body(self.game_id, step.number, step.title, snap.deadline,
                                                                side.value),
                                            created=format_time(now)))
                        done.append(f"reminder queued for {side.value} (step {step.number}, due {snap.deadline})")
        self.render_pending()
        return done

    # -- verification
    def verify(self) -> VerifyReport:
        """Replay every submission from the start and compare everything stored."""
        return _Verifier(self).run()


def _event_of(r: EventRecord) -> Event:
    return Event.from_json({"kind": r.kind, "audience": r.audience, "text": r.text, "data": json.loads(r.data)})


def _engine(path: Path, store: Any) -> Any:
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": BUSY_TIMEOUT_SECONDS})

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        dbapi_conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if getattr(store, "_immediate", False) else "BEGIN")

    return engine


def initial_session(game: GameRecord) -> Session:
    """The adjudication state at the start, rebuilt from the stored set-up."""
    settings = Settings.from_json(json.loads(game.settings))
    if game.scenario:
        return Session(Game.from_json(json.loads(game.scenario)), settings)
    return Session(new_game(game.seed, Options.from_json(json.loads(game.options))), settings)


def header_hash(game: GameRecord) -> str:
    return sha256_text(canonical_json({
        "game": game.id, "schema": game.schema_version, "seed": game.seed, "options": json.loads(game.options),
        "settings": json.loads(game.settings), "scenario": json.loads(game.scenario) if game.scenario else None,
    }))


# ---- verification ---------------------------------------------------------------------------


class _Verifier:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.problems: list[str] = []

    def fail(self, step: int | None, text: str) -> None:
        self.problems.append(f"step {step}: {text}" if step is not None else text)

    def run(self) -> VerifyReport:
        with self.store._read() as db:
            game = db.exec(select(GameRecord)).one()
            players = {p.side: p for p in db.exec(select(PlayerRecord)).all()}
            subs = list(db.exec(select(SubmissionRecord).order_by(SubmissionRecord.id)).all())  # type: ignore[arg-type]
            events = list(db.exec(select(EventRecord).order_by(EventRecord.seq)).all())  # type: ignore[arg-type]
            snaps = {s.step: s for s in db.exec(select(SnapshotRecord)).all()}
            outbox = list(db.exec(select(OutboxRecord).where(OutboxRecord.kind == "report")
                                  .order_by(OutboxRecord.id)).all())  # type: ignore[arg-type]
        report = VerifyReport(game.id, steps=len(snaps), submissions=len(subs), events=len(events), reports=len(outbox))
        if header_hash(game) != game.header_hash:
            self.fail(None, "the game's set-up (seed, options, scenario) does not match its stored hash")
        self.check_chain(game, events)
        for s in snaps.values():
            if sha256_text(s.session) != s.hash:
                self.fail(s.step, "the snapshot's hash does not match its content")
        replayed = self.replay(game, players, subs, events, snaps)
        self.check_reports(outbox, replayed, snaps)
        report.problems = self.problems
        return report

    def check_chain(self, game: GameRecord, events: list[EventRecord]) -> None:
        prev = game.header_hash
        for i, r in enumerate(events, start=1):
            if r.seq != i:
                self.fail(r.step, f"event #{i} is missing (found #{r.seq})")
                return
            if r.prev_hash != prev:
                self.fail(r.step, f"event #{r.seq} does not link to the event before it (the chain is broken)")
            try:
                ev = {"kind": r.kind, "audience": r.audience, "text": r.text, "data": json.loads(r.data)}
            except ValueError:
                self.fail(r.step, f"event #{r.seq} has damaged data")
                prev = r.hash
                continue
            if event_hash(r.seq, r.step, ev, r.prev_hash) != r.hash:
                self.fail(r.step, f"event #{r.seq} ({r.kind}) does not match its hash: its content was altered")
            prev = r.hash

    def replay(
        self, game: GameRecord, players: dict[str, PlayerRecord], subs: list[SubmissionRecord],
        events: list[EventRecord], snaps: dict[int, SnapshotRecord],
    ) -> tuple[dict[int, str], list[Event]]:
        session = initial_session(game)
        first = min(snaps) if snaps else 1
        sessions: dict[int, str] = {}
        log: list[Event] = []
        stored_log = [{"kind": r.kind, "audience": r.audience, "text": r.text, "data": json.loads(r.data)}
                      for r in events]
        if first not in snaps:
            self.fail(first, "the starting snapshot is missing")
            return sessions, log
        if not self.same_state(first, session, snaps[first]):
            return sessions, log
        opening = _events_json(session.game.events)  # events of the game's creation
        session.game.events = []
        for k, (a, b) in enumerate(zip(stored_log, opening)):
            if a != b:
                self.fail(first, f"event #{k + 1} differs from the replay: {_first_difference(a, b)}")
                return sessions, log
        if snaps[first].last_event != len(opening):
            self.fail(first, f"the game's creation gives {len(opening)} events; the store has {snaps[first].last_event}")
            return sessions, log
        log.extend(Event.from_json(e) for e in opening)
        sessions[first] = snaps[first].session
        digests: dict[str, int] = {}
        deadlines = sorted((s for s in snaps.values() if s.cause == Cause.DEADLINE.value), key=lambda s: s.step)

        def resolution(step: int, evs: list[Event], cause: Cause, sid: int | None) -> bool:
            snap = snaps.get(session.step_no)
            if snap is None:
                self.fail(step, f"the replay resolves step {step} but no snapshot of step {session.step_no} is stored")
                return False
            if snap.cause != cause.value or snap.submission_id != sid:
                self.fail(step, f"the replay resolves step {step} by {cause.value}"
                          f"{f' #{sid}' if sid else ''}; the store says by {snap.cause}"
                          f"{f' #{snap.submission_id}' if snap.submission_id else ''}")
                return False
            new = _events_json(evs)
            start = len(log)
            stored = stored_log[start: start + len(new)]
            for k, (a, b) in enumerate(zip(stored, new)):
                if a != b:
                    self.fail(step, f"event #{start + k + 1} differs from the replay: {_first_difference(a, b)}")
                    return False
            if len(stored) != len(new) or snap.last_event != start + len(new):
                self.fail(step, f"the replay gives {len(new)} events for this step; the store has "
                          f"{snap.last_event - start}")
                return False
            log.extend(evs)
            if not self.same_state(session.step_no, session, snap):
                return False
            sessions[session.step_no] = snap.session
            return True

        for row in subs:
            while deadlines and deadlines[0].after_submission < (row.id or 0) and deadlines[0].step == session.step_no + 1:
                step = session.step_no
                if not resolution(step, session.resolve(deadline=True), Cause.DEADLINE, None):
                    return sessions, log
                deadlines.pop(0)
            if row.verdict == Verdict.RECEIVED.value:
                continue
            step = session.step_no
            out = _decide(session, game.id, players, row.raw, digests)
            where = f"submission #{row.id} ({row.side or 'unknown side'}, for step {row.step})"
            stored_ok = row.verdict in (Verdict.ACCEPTED.value, Verdict.SUPERSEDED.value)
            replay_ok = out.verdict is Verdict.ACCEPTED
            if stored_ok != replay_ok or (not stored_ok and row.verdict != out.verdict.value):
                why = f": {out.reason}" if out.reason else ""
                if out.errors:
                    why += " (" + "; ".join(f"line {e['line']}: {e['message']}" for e in out.errors) + ")"
                self.fail(row.step if row.step is not None else step,
                          f"{where} is stored as {row.verdict} but the replay makes it {out.verdict.value}{why}")
                return sessions, log
            stored_errors = json.loads(row.errors) if row.errors else []
            if not replay_ok and (row.reason != out.reason or stored_errors != out.errors):
                self.fail(row.step if row.step is not None else step,
                          f"{where} is stored as {row.verdict} ({row.reason}) but the replay gives another reason: "
                          f"{out.reason}")
                return sessions, log
            if out.digest != row.digest:
                self.fail(step, f"{where}: its digest differs from the stored one (the bytes were altered)")
                return sessions, log
            if replay_ok:
                digests[out.digest or ""] = row.id or 0
                if row.orders != out.orders or row.applied_step != step:
                    self.fail(step, f"{where}: the stored orders or step differ from the replay")
                    return sessions, log
                if out.resolved_step is not None and not resolution(step, out.events, Cause.SUBMISSION, row.id):
                    return sessions, log
        while deadlines and deadlines[0].step == session.step_no + 1:
            step = session.step_no
            if not resolution(step, session.resolve(deadline=True), Cause.DEADLINE, None):
                return sessions, log
            deadlines.pop(0)
        extra = sorted(s for s in snaps if s > session.step_no)
        if extra:
            self.fail(extra[0], "a snapshot is stored that the replay never reaches")
        if len(log) != len(stored_log):
            self.fail(session.step_no, f"{len(stored_log) - len(log)} stored events that the replay never produces")
        return sessions, log

    def same_state(self, step: int, session: Session, snap: SnapshotRecord) -> bool:
        text = canonical_json(session.to_json())
        if text == snap.session:
            return True
        try:
            where = _first_difference(json.loads(snap.session), json.loads(text))
        except ValueError:
            where = "the stored snapshot is not JSON"
        self.fail(step, f"the snapshot differs from the replay at {where}")
        return False

    def check_reports(self, outbox: list[OutboxRecord], replayed: tuple[dict[int, str], list[Event]],
                      snaps: dict[int, SnapshotRecord]) -> None:
        sessions, log = replayed
        for row in outbox:
            if row.step not in sessions or row.upto_event > len(log):
                continue  # already reported: the replay stopped before this step
            if row.body is None:
                self.fail(row.step, f"the {row.format} report for {row.recipient} was never rendered")
                continue
            snap = snaps[row.step]
            body = _render_report(sessions[row.step], log, row, snap.deadline)
            if body != row.body:
                a, b = row.body.splitlines(), body.splitlines()
                line = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                self.fail(row.step, f"the {row.format} report for {row.recipient} differs from a fresh rendering "
                          f"at line {line + 1}")


# ---- the folder of games --------------------------------------------------------------------


class Home:
    """A folder of game files (``<game id>.db``)."""

    SUFFIX = ".db"

    def __init__(self, path: str | Path, *, clock: Callable[[], datetime] = _utcnow) -> None:
        self.path = Path(path)
        self.clock = clock

    def file(self, game_id: str) -> Path:
        return self.path / f"{game_id}{self.SUFFIX}"

    def games(self) -> list[str]:
        if not self.path.is_dir():
            return []
        return sorted(p.name[: -len(self.SUFFIX)] for p in self.path.glob(f"*{self.SUFFIX}") if p.is_file())

    def open(self, game_id: str, *, recover: bool = True) -> Store:
        f = self.file(game_id)
        if not _GAME_ID_RE.fullmatch(game_id) or not f.exists():
            known = ", ".join(self.games()) or "none"
            raise StoreError(f"no game {game_id!r} in {self.path} (games there: {known}); "
                             "create it with `pbem new` or pass the right --home")
        return Store(f, clock=self.clock, recover=recover)

    def create(self, setup: GameSetup) -> Store:
        """Create a game file: set-up, players, the first snapshot and its reports."""
        gid = setup.game_id
        if not _GAME_ID_RE.fullmatch(gid):
            raise StoreError(f"{gid!r} is not a usable game id; use 1 to 100 letters, digits, '.', '_' or '-', "
                             "starting with a letter or digit")
        sides = sorted(p.side.value for p in setup.players)
        if sides != sorted(s.value for s in Side):
            raise StoreError("register exactly one player for each side (Caesar and Pompey)")
        for p in setup.players:
            if (p.public_key is None) == (p.password_hash is None):
                raise StoreError(f"{p.side.value} needs exactly one credential: a public key or a password")
            if p.public_key is not None:
                key_fingerprint(p.public_key)  # raises a KeyFormatError saying what is wrong
        target = self.file(gid)
        if target.exists():
            raise StoreError(f"game {gid!r} already exists ({target}); choose another id")
        self.path.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.unlink(missing_ok=True)
        now = format_time(self.clock())
        if setup.scenario is not None:
            game0 = setup.scenario
            scenario = canonical_json(game0.to_json())
            seed = game0.state.rng.seed
            options = game0.state.options
        else:
            game0, scenario, seed, options = new_game(setup.seed, setup.options), None, setup.seed, setup.options
        record = GameRecord(id=gid, seed=seed, options=canonical_json(options.to_json()),
                            settings=canonical_json(setup.settings.to_json()), scenario=scenario,
                            deadline_seconds=int(setup.deadline.total_seconds()) if setup.deadline else None,
                            moderator_email=setup.moderator_email, created=now, header_hash="")
        record.header_hash = header_hash(record)
        engine = create_engine(f"sqlite:///{tmp}")
        try:
            SQLModel.metadata.create_all(engine, tables=[t.__table__ for t in _TABLES])  # type: ignore[union-attr]
            with DbSession(engine, expire_on_commit=False) as db:
                db.add(record)
                for p in setup.players:
                    db.add(PlayerRecord(side=p.side.value, email=p.email, public_key=p.public_key,
                                        password_hash=p.password_hash,
                                        fingerprint=key_fingerprint(p.public_key) if p.public_key else None))
                db.commit()
        finally:
            engine.dispose()
        store = Store(tmp, clock=self.clock, recover=False)
        try:
            with store._write() as db:
                created = list(game0.events)  # the opening deal and "Year begins" (a scenario has none)
                game0.events = []
                store._record_resolution(db, Session(game0, setup.settings), created, Cause.NEW, None, 0, self.clock())
        finally:
            store.close()
        if target.exists():
            tmp.unlink(missing_ok=True)
            raise StoreError(f"game {gid!r} was created meanwhile by someone else; choose another id")
        os.replace(tmp, target)
        return Store(target, clock=self.clock)

    def route(self, raw: bytes) -> str:
        """The game a submission is addressed to (read from its envelope)."""
        try:
            return parse_submission(raw).envelope.game
        except EnvelopeError as exc:
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


_TABLES = (GameRecord, PlayerRecord, SubmissionRecord, EventRecord, SnapshotRecord, OutboxRecord)


def settings_for(battles: str) -> Settings:
    return Settings(BattleMode(battles))
