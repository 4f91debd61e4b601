"""Orders from a plain email reply, for a password-mode player with nothing but a mail program.

He answers a report mail ("Re: [g1] step 3: ...") with his orders, one per line, and a line
``password: SECRET``. There is no armored block, so what the envelope needs comes from the
message and the game (see docs/envelope.md, "Plain replies"):

* the game: the ``[GAME]`` the subject names;
* the side: a ``side: NAME`` line, else the side whose registered address is the From
  address (the password, not the From header, is what authenticates him);
* the step: the ``step N`` the subject names, else the step of his last report;
* the nonce: 32 hex digits of the SHA-256 of the Message-ID, the Date and the orders, and
  the time: the Date header in UTC; so the same message delivered or sent again is the same
  submission, an exact resend (a duplicate), while a new message is a new one.

Lines starting with ``>`` (quotes), everything from a ``-- `` signature line or an
``-----Original Message-----`` line on, a ``... wrote:`` line that opens a quote, and blank
lines are left out. Pure: the caller gives the registered addresses and the last step.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from datetime import UTC
from email import policy
from email.parser import BytesParser
from email.utils import parseaddr, parsedate_to_datetime

from pbem.envelope import SignedSubmission, format_time, new_envelope, normalize_orders
from pbem.errors import EnvelopeError
from pbem.transport.message import extract_body_from_email, looks_like_email, split_lines

__all__ = ["PASSWORD_LINE", "has_password_line", "plain_reply", "plain_reply_game", "subject_game"]

PASSWORD_LINE = re.compile(r"^\s*password\s*:\s*(.*?)\s*$", re.IGNORECASE)
_SIDE_LINE = re.compile(r"^\s*side\s*:\s*(.*?)\s*$", re.IGNORECASE)
# "step" in the subject of an English report, "etapa" / "etapp" in a Spanish / Swedish one
_SUBJECT = re.compile(r"\[([A-Za-z0-9][A-Za-z0-9_.-]*)\](?:\s+(?:step|etapa|etapp)\s+(\d{1,9}))?", re.IGNORECASE)
_ENDS = ("-- ", "-----Original Message-----", "________________________________")


def _headers(raw: bytes) -> tuple[str, str, str, str]:
    if raw.startswith(b"From "):
        raw = raw.partition(b"\n")[2]
    msg = BytesParser(policy=policy.default).parsebytes(raw, headersonly=True)
    return tuple(" ".join(str(msg.get(n, "") or "").split())  # type: ignore[return-value]
                 for n in ("Subject", "From", "Date", "Message-ID"))


def subject_game(raw: bytes) -> tuple[str, int | None] | None:
    """The game id (and the step, if any) the Subject names as ``[GAME] step N``, or None."""
    try:
        subject = _headers(raw)[0]
    except Exception:  # noqa: BLE001 - headers broken beyond reading
        return None
    m = _SUBJECT.search(subject)
    if m is None:
        return None
    return m.group(1), int(m.group(2)) if m.group(2) else None


def _lines(body: str) -> list[str]:
    """The player's own lines: no quotes, no signature, no quoted original."""
    lines = split_lines(body)
    out: list[str] = []
    for i, line in enumerate(lines):
        if line in _ENDS or line.strip() in _ENDS[1:]:
            break
        if line.startswith(">"):
            continue
        rest = [x for x in lines[i + 1:] if x.strip()]
        if line.rstrip().endswith("wrote:") and rest and rest[0].startswith(">"):
            continue
        out.append(line)
    return out


def has_password_line(raw: bytes) -> bool:
    """Is it a plain reply: an email whose own text has a ``password:`` line and no armored
    block (a damaged block is answered as one)?"""
    if not looks_like_email(raw[:2000].decode("latin-1")):
        return False
    try:
        lines = _lines(extract_body_from_email(raw))
    except EnvelopeError:
        return False
    return not any("-----BEGIN PBEM" in x for x in lines) and any(PASSWORD_LINE.match(x) for x in lines)


def plain_reply_game(raw: bytes) -> str | None:
    """The game a plain reply (an email with a ``password:`` line of its own) names in its subject."""
    if not has_password_line(raw):
        return None
    named = subject_game(raw)
    return named[0] if named else None


def plain_reply(raw: bytes, game: str, emails: Mapping[str, str], last_step: Mapping[str, int]) -> SignedSubmission:
    """The password-mode submission a plain reply to ``game`` makes. ``emails``: each side's
    registered address; ``last_step``: the step of each side's last report. Raises
    :class:`EnvelopeError`, saying what to write, when a part of it is missing."""
    subject, sender, date, message_id = _headers(raw)
    named = _SUBJECT.search(subject)
    if named is None or named.group(1) != game:
        raise EnvelopeError(f"the subject does not name game {game}; reply to your last report mail and keep its "
                            f"subject ('[{game}] step N: ...')")
    body = _lines(extract_body_from_email(raw))
    passwords = [m.group(1) for m in map(PASSWORD_LINE.match, body) if m]
    sides = [m.group(1) for m in map(_SIDE_LINE.match, body) if m]
    if len(passwords) != 1 or not passwords[0]:
        raise EnvelopeError("write your password once, on a line of its own: 'password: YOUR PASSWORD'")
    if len(sides) > 1:
        raise EnvelopeError("name your side once ('side: NAME'), or leave it out to be known by your address")
    orders = [x for x in body if not PASSWORD_LINE.match(x) and not _SIDE_LINE.match(x)]
    if sides:
        match = [s for s in emails if s.lower() == sides[0].lower()]
        if not match:
            raise EnvelopeError(f"the side line names {sides[0]!r}; write one of {', '.join(emails)}")
        side = match[0]
    else:
        address = parseaddr(sender)[1].lower()
        match = [s for s, e in emails.items() if address and parseaddr(e)[1].lower() == address]
        if len(match) != 1:
            raise EnvelopeError("add a line 'side: NAME' (your From address is not the one registered for "
                                "exactly one side)")
        side = match[0]
    step = int(named.group(2)) if named.group(2) else last_step.get(side)
    if step is None:
        raise EnvelopeError(f"say which step this answers: keep the subject of your report mail ('[{game}] step N')")
    try:
        when = parsedate_to_datetime(date)
    except (TypeError, ValueError):
        raise EnvelopeError("the message has no readable Date header; send it from a mail program") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    lines = normalize_orders(orders)
    seed = "\n".join([message_id, format_time(when), *lines])
    env = new_envelope(game, side, step, lines, nonce=hashlib.sha256(seed.encode("utf-8")).hexdigest()[:32],
                       time=when)
    return SignedSubmission(env, password=passwords[0])
