"""Every submission a game received, as the moderator settles a dispute with it (``pbem submissions``).

Built only from the stored records (:class:`pbem.tables.SubmissionRecord`, the mailbox's
:class:`pbem.tables.MessageRecord` and each step's deadline as it opened): when it arrived, how
(mail with its Message-ID, a file, the computer player), which side and step it claimed, its
credential (signed, or a password and whether it matched), the verdict and the reason, and
whether it came before the claimed step's deadline. It is for the moderator: it names both sides'
submissions, but never their orders' text, nor the order errors (which quote the orders), unless
``orders=True``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pbem.decide import parse_time
from pbem.envelope import parse_password_removed, parse_submission
from pbem.errors import EnvelopeError, PbemError
from pbem.moderator import CHECK as MODERATOR_CHECK
from pbem.tables import MessageRecord, SubmissionRecord

COMPUTER_SOURCE = "computer"  # pbem.computer stores its submissions with this source


@dataclass(frozen=True)
class SubmissionLine:
    """One received submission, as the moderator sees it."""

    id: int
    received: str  # when pbem stored it (UTC)
    via: str  # mail | file | computer | moderator (an action of `pbem forfeit`)
    source: str  # the mailbox and Message-ID, or the file name, as stored
    message_ids: tuple[str, ...]  # mail: the Message-ID of each message that carried it ("" when it had none)
    credential: str  # signed | password | unreadable
    password: str | None  # password mode: matched | wrong
    side: str | None  # as claimed
    step: int | None  # as claimed
    sent: str | None  # the time in the envelope (the sender's own clock: a claim, not a proof)
    deadline: str | None  # the claimed step's deadline when it opened (None: no deadline, or no such step)
    on_time: bool | None  # received by that deadline (None: no deadline to judge by)
    verdict: str
    reason: str
    errors: int  # how many order errors (and warnings) were found
    related: int | None  # duplicate of / superseded by this submission
    applied_step: int | None  # accepted for this step
    processed: str | None  # when it was decided
    orders: tuple[str, ...] | None = None  # only when asked for: the orders' lines
    error_lines: tuple[dict[str, Any], ...] | None = None  # only when asked for: the errors (they quote orders)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "received": self.received, "via": self.via, "source": self.source,
            "message_ids": list(self.message_ids), "credential": self.credential, "password": self.password,
            "side": self.side, "step": self.step, "sent": self.sent, "deadline": self.deadline,
            "on_time": self.on_time, "verdict": self.verdict, "reason": self.reason, "errors": self.errors,
            "related": self.related, "applied_step": self.applied_step, "processed": self.processed,
        }
        if self.orders is not None:
            out["orders"] = list(self.orders)
        if self.error_lines is not None:
            out["error_lines"] = list(self.error_lines)
        return out

    def lines(self) -> list[str]:
        """The text form: a head line, then what a dispute turns on, indented."""
        claim = f"{self.side or '?'}, step {self.step if self.step is not None else '?'}"
        where = self.source or "-"
        head = f"#{self.id} {self.received} {self.via} {where}: {claim}: {self.verdict}"
        out = [head]
        cred = self.credential + (f" ({self.password})" if self.password else "")
        facts = [cred]
        if self.sent:
            facts.append(f"envelope time {self.sent}")
        if self.deadline:
            facts.append(f"due {self.deadline}: " + ("on time" if self.on_time else "LATE"))
        elif self.step is not None and self.via != "moderator":
            facts.append("no deadline")
        if self.message_ids and any(self.message_ids):
            facts.append("Message-ID " + ", ".join(m or "-" for m in self.message_ids))
        out.append("    " + "; ".join(facts))
        if self.reason:
            out.append(f"    reason: {self.reason}")
        elif self.related is not None:
            out.append(f"    superseded by #{self.related}")
        if self.errors and self.error_lines is None:
            out.append(f"    {self.errors} order error{'' if self.errors == 1 else 's'} or warning"
                       f"{'' if self.errors == 1 else 's'} (--orders shows them)")
        if self.orders is not None:
            out.extend(f"    | {o}" for o in self.orders)
        for e in self.error_lines or ():
            kind = "warning" if e.get("warning") else "error"
            out.append(f"    {kind} line {e.get('line')}: {e.get('text', '')}: {e.get('message', '')}")
        return out


def submission_lines(records: tuple[list[SubmissionRecord], list[MessageRecord], dict[int, str | None]], *,
                     step: int | None = None, orders: bool = False) -> list[SubmissionLine]:
    """The lines of ``Store.submission_records()``: every submission, or those that claimed or were
    accepted for ``step``; ``orders``: with the orders' text and errors (moderator's eyes only)."""
    subs, messages, deadlines = records
    by_sub: dict[int, list[MessageRecord]] = {}
    for m in messages:
        by_sub.setdefault(m.submission_id, []).append(m)
    out = []
    for s in subs:
        if step is not None and step not in (s.step, s.applied_step):
            continue
        assert s.id is not None
        out.append(_line(s, sorted(by_sub.get(s.id, []), key=lambda m: (m.received, m.message_id)),
                         deadlines, orders))
    return out


def _line(s: SubmissionRecord, messages: list[MessageRecord], deadlines: dict[int, str | None],
          orders: bool) -> SubmissionLine:
    sent: str | None = None
    text: tuple[str, ...] | None = None
    credential = "password" if s.password_check else "signed"
    if s.password_check == MODERATOR_CHECK:  # the moderator's own action (pbem forfeit)
        return SubmissionLine(
            id=s.id or 0, received=s.received, via="moderator", source=s.source, message_ids=(),
            credential="moderator", password=None, side=s.side, step=s.step, sent=None, deadline=None,
            on_time=None, verdict=s.verdict, reason=s.reason or f"the moderator's action: {s.orders}", errors=0, related=s.related,
            applied_step=s.applied_step, processed=s.processed)
    try:
        sub = parse_password_removed(s.raw) if s.password_check else parse_submission(s.raw)
    except EnvelopeError:
        credential = "unreadable"
    else:
        sent = sub.envelope.time
        text = sub.envelope.orders
        if sub.password is not None:  # stored before passwords were stripped (an old file): never shown
            credential = "password"
    via = "mail" if messages else ("computer" if s.source == COMPUTER_SOURCE else "file")
    deadline = deadlines.get(s.step) if s.step is not None else None
    on_time: bool | None = None
    if deadline:
        try:
            on_time = parse_time(s.received) <= parse_time(deadline)
        except PbemError:
            on_time = None
    errors = _errors(s.errors)
    return SubmissionLine(
        id=s.id or 0, received=s.received, via=via, source=s.source,
        message_ids=tuple(dict.fromkeys(m.message_id for m in messages)),
        credential=credential, password=s.password_check, side=s.side, step=s.step, sent=sent,
        deadline=deadline, on_time=on_time, verdict=s.verdict, reason=s.reason or "", errors=len(errors),
        related=s.related, applied_step=s.applied_step, processed=s.processed,
        orders=(text or ()) if orders else None, error_lines=tuple(errors) if orders else None,
    )


def _errors(text: str | None) -> list[dict[str, Any]]:
    import json

    if not text:
        return []
    try:
        data = json.loads(text)
    except ValueError:
        return []
    return [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []
