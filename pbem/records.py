"""What a game file's rows say, without the ORM: the file format's names, the verdicts and causes
stored in it, and a submission's :class:`Receipt`.

Kept apart from :mod:`pbem.tables` (the SQLModel classes) so that what reads or writes a game file
through the standard library alone (:mod:`pbem.sealed`, a sealed ``pbem submit``) names them the
same way without loading SQLModel, SQLAlchemy and pydantic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

__all__ = ["GAME_FILE_SUFFIX", "GAME_ID_RE", "LEGACY_SYSTEM", "ON_DEMAND", "RENDERING_OWED", "kept_on_demand", "computer_settings", "games_in", "LEGACY_SCHEMAS", "READABLE_SCHEMAS", "SCHEMA", "Cause", "Receipt", "Verdict"]

SCHEMA = "pbem-store 3"  # 2: outbox.submission_id (replies); 3: game.system, game.commitment and game.secret
LEGACY_SCHEMAS = ("pbem-store 2",)  # read too: migrated when opened (see pbem.store)
READABLE_SCHEMAS = (*LEGACY_SCHEMAS, SCHEMA)
GAME_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")  # a game's id, and its file's name
GAME_FILE_SUFFIX = ".db"  # a game's file in the home folder: <game id>.db
#: The game system of a file or bundle that does not name one: files written before the system column
#: (format 2) are all Julius Caesar. The only place the core names a game of its own accord.
LEGACY_SYSTEM = "caesar"
#: The ``renderer`` of a report kept without a body because, when it was queued, it was to be mailed
#: to no one: a step that asks nothing of a player who folds such steps into his next mail, or a
#: recipient without an address. Its body is rendered from the stored game when someone asks for it,
#: and stored once it leaves pbem (``pbem report`` prints it, ``pbem send`` mails it after all).
#: A report whose body is NULL and whose renderer is not this one is unfinished work (recovery renders it).
ON_DEMAND = "on demand"


#: The outbox rows whose rendering is unfinished (recovery renders them), as an SQL condition: no body,
#: and not a report kept on demand. A row without a body is one or the other (:func:`kept_on_demand`).
RENDERING_OWED = f"body IS NULL AND renderer IS NOT '{ON_DEMAND}'"


def kept_on_demand(row: Any) -> bool:
    """Whether an outbox row (an ORM record or a plain row) is a report kept on demand: no body yet,
    and none owed (see :data:`ON_DEMAND`), unlike a report whose rendering is unfinished."""
    return getattr(row, "body", None) is None and getattr(row, "renderer", None) == ON_DEMAND


def computer_settings(home: Path, game_id: str) -> Path:
    """The file that makes a side of ``game_id`` a computer player's (``pbem new --computer``;
    :mod:`pbem.computer` writes and reads it)."""
    return home / f"{game_id}.computer.json"


def games_in(folder: Path) -> list[str]:
    """The ids of the game files in ``folder``, sorted."""
    if not folder.is_dir():
        return []
    return sorted(p.name[: -len(GAME_FILE_SUFFIX)] for p in folder.glob(f"*{GAME_FILE_SUFFIX}") if p.is_file())


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
    stands: int | None = None  # rejected: the side's earlier accepted submission for the step, which still counts
    again: bool = False  # the mailbox message was received before: nothing was stored or queued now

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "submission": self.submission,
            "verdict": self.verdict.value,
            "again": self.again,
            "stands": self.stands,
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
