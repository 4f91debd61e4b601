"""Reading email: the text body of a full RFC 822 message.

A submission may arrive as a whole email message (headers first, as saved from a mail
program or piped from a mailbox). This module finds its text: the text/plain part,
with the transfer encoding (quoted-printable, base64) and the charset decoded and
RFC 3676 ``format=flowed`` soft line breaks joined; or, when there is no plain part,
the text/html part turned into text the way a mail reader shows it; and a JSON file
attached to it (:func:`json_attachment`), for players who attach what ``pbem sign``
wrote. The parsing is done by :mod:`pbem.transport.mime`, which this module imports only
when a message is read: a submission that is no email (a signed JSON file) never loads the
``email`` package. Feeding a whole mailbox and sending the reports is :mod:`pbem.transport`.
Reading the armored block or the JSON in that text is :mod:`pbem.envelope`'s job, which also
re-exports :func:`extract_body_from_email`.

Also here, because mail is where they matter: the line splitting that keeps the
characters ``str.splitlines`` would split on (:func:`pbem.core.orders.split_lines`), whether a text
starts like an email, and the size limit checked before any parsing. Like
:mod:`pbem.envelope` this is a pure library: every failure a user can cause raises
:class:`~pbem.errors.EnvelopeError` with a message that says what to do.
"""

from __future__ import annotations

import re

from pbem.core.orders import split_lines
from pbem.errors import EnvelopeError

__all__ = [
    "MAX_SUBMISSION_BYTES",
    "check_size",
    "extract_body_from_email",
    "json_attachment",
    "looks_like_email",
    "split_lines",
]

#: Larger inputs are refused before any parsing (a submission is a few kilobytes).
MAX_SUBMISSION_BYTES = 1_000_000


_EMAIL_HEADER_NAMES = frozenset(
    {
        "from", "to", "cc", "subject", "date", "mime-version", "message-id", "received",
        "return-path", "delivered-to", "reply-to", "sender", "content-type",
        "content-transfer-encoding", "dkim-signature", "authentication-results",
        "in-reply-to", "references", "user-agent", "envelope-to",
        # first lines of messages as mail servers store them in a mailbox (pbem inbox)
        "arc-seal", "arc-message-signature", "arc-authentication-results", "received-spf",
        "thread-topic", "thread-index", "importance", "content-language", "list-id",
        "precedence", "auto-submitted", "bcc", "organization",
    }
)  # fmt: skip
_HEADER_LINE_RE = re.compile(r"([A-Za-z0-9-]+)[ \t]*:")


def looks_like_email(head: str) -> bool:
    """Does the text start with RFC 822 headers (or an mbox 'From ' line)?"""
    lines = split_lines(head.lstrip("\ufeff"))
    first = lines[0]
    if first.startswith("From ") and len(lines) > 1:
        first = lines[1]
    match = _HEADER_LINE_RE.match(first)
    if match is None:
        return False
    name = match.group(1).lower()
    return name in _EMAIL_HEADER_NAMES or name.startswith("x-")


def check_size(size: int) -> None:
    if size > MAX_SUBMISSION_BYTES:
        raise EnvelopeError(
            f"the submission is {size} bytes; the limit is {MAX_SUBMISSION_BYTES} "
            "(send only the signed file or the block that `pbem sign` printed)"
        )


def json_attachment(raw: bytes) -> str | None:
    """The text of the first JSON file attached to a full RFC 822 message (a part typed
    ``application/json`` or named ``*.json``, as a player attaches what ``pbem sign
    --out`` wrote), or None when there is none. The size limit is checked first."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogatepass")
    check_size(len(raw))
    from pbem.transport.mime import attached_json

    return attached_json(raw)


def extract_body_from_email(raw: bytes) -> str:
    """The text body of a full RFC 822 message: the text/plain part (transfer
    encoding and charset decoded, format=flowed joined), else the text/html part
    with its tags stripped."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogatepass")
    check_size(len(raw))
    from pbem.transport.mime import body_text

    try:
        return body_text(raw)
    except EnvelopeError:
        raise
    except Exception as exc:  # the email package can fail in many ways on broken mail
        raise EnvelopeError(
            f"the email message cannot be read ({type(exc).__name__}); paste the block "
            "that `pbem sign` printed into a new plain-text message"
        ) from exc
