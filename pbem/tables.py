"""The SQLModel tables of one game file (see :mod:`pbem.store` for what each holds and the pipeline).

Kept apart so the store, the audit and the reply builder share one definition of the schema.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Column, Index, LargeBinary, Text, UniqueConstraint
from sqlalchemy import text as sql_text
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel

from pbem import bodies
from pbem.records import LEGACY_SCHEMAS, LEGACY_SYSTEM, READABLE_SCHEMAS, SCHEMA, Cause, Verdict

__all__ = [
    "LEGACY_SCHEMAS",
    "READABLE_SCHEMAS",
    "SCHEMA",
    "Cause",
    "EventRecord",
    "GameRecord",
    "MessageRecord",
    "OutboxRecord",
    "PlayerRecord",
    "ReportBody",
    "SnapshotRecord",
    "SubmissionRecord",
    "Verdict",
]



class ReportBody(TypeDecorator[str]):
    """A report body: read and written as ``str``, stored compressed (see :mod:`pbem.bodies`).

    The column stays ``TEXT`` (SQLite keeps a value's own type, so a compressed body is a
    BLOB in it), and bodies stored in full by earlier versions read as they are."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Any) -> Any:
        return None if value is None else bodies.pack(value)

    def process_result_value(self, value: Any, dialect: Any) -> str | None:
        return None if value is None else bodies.unpack(value)


# ---- what the rows say ---------------------------------------------------------------


# ---- tables --------------------------------------------------------------------------


class GameRecord(SQLModel, table=True):
    __tablename__ = "game"

    id: str = Field(primary_key=True)
    schema_version: str = SCHEMA  # the format the file was created in (part of the set-up's hash)
    system: str = LEGACY_SYSTEM  # the game system (pbem.games.find_game); files of format 2 are all Julius Caesar
    seed: int
    options: str  # JSON: the game's option values (format 2: the engine options; the battle mode in settings)
    settings: str  # JSON: "{}" (format 2: the step settings)
    scenario: str | None = Field(default=None, sa_column=Column(Text, nullable=True))  # starting position JSON
    deadline_seconds: int | None = None
    moderator_email: str = ""
    created: str
    header_hash: str  # sha256 of the canonical set-up: the first event's prev_hash
    commitment: str | None = None  # SHA-256 hex of the secret (None: draws from the seed, a practice game)
    secret: str | None = None  # 32 random bytes, hex: keys every draw; revealed when the game ends


class PlayerRecord(SQLModel, table=True):
    __tablename__ = "player"

    side: str = Field(primary_key=True)
    email: str = ""
    public_key: str | None = None
    password_hash: str | None = None
    fingerprint: str | None = None
    language: str = "en"  # of his reports and replies (pbem new --language; the order line `language xx`)


class SubmissionRecord(SQLModel, table=True):
    __tablename__ = "submission"

    id: int | None = Field(default=None, primary_key=True)
    raw: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # a password-mode one: without the password
    password_check: str | None = None  # password mode: "matched" or "wrong" (checked on arrival)
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
    # SQLite treats NULLs as distinct in a UNIQUE key: the partial index keeps reports and
    # reminders (no submission) unique per (step, kind, recipient, format) as before.
    __table_args__ = (UniqueConstraint("step", "kind", "recipient", "format", "submission_id"),
                      Index("outbox_unique_without_submission", "step", "kind", "recipient", "format",
                            unique=True, sqlite_where=sql_text("submission_id IS NULL")))

    id: int | None = Field(default=None, primary_key=True)
    step: int
    kind: str = "report"  # report | reminder | reply
    recipient: str  # a side | moderator
    email: str = ""
    format: str  # text | html
    subject: str
    body: str | None = Field(default=None, sa_column=Column(ReportBody, nullable=True))  # compressed
    since_event: int = 0  # events before this index were in the recipient's earlier reports
    upto_event: int = 0
    created: str
    sent: str | None = None
    submission_id: int | None = None  # a reply: the submission it answers
    renderer: str | None = None  # which rendering made the body (pbem.decide.renderer_of); None: before pbem 0.2
    language: str = "en"  # the recipient's language when it was queued (a later change leaves it as sent)


class MessageRecord(SQLModel, table=True):
    """A mailbox message fed to the game (``pbem inbox``): its identity, stored in the same
    transaction as the submission it carried, so a message fed again is recognised before
    anything is stored or queued. Files older than this table get it on their first write."""

    __tablename__ = "message"

    digest: str = Field(primary_key=True)  # SHA-256 of the message's bytes
    message_id: str = Field(default="", index=True)  # the Message-ID header ("" when it has none)
    submission_id: int  # the submission it carried
    received: str


# ---- values ----------------------------------------------------------------------------
