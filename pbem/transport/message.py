"""Reading email: the text body of a full RFC 822 message.

A submission may arrive as a whole email message (headers first, as saved from a mail
program or piped from a mailbox). This module finds its text: the text/plain part,
with the transfer encoding (quoted-printable, base64) and the charset decoded and
RFC 3676 ``format=flowed`` soft line breaks joined; or, when there is no plain part,
the text/html part turned into text the way a mail reader shows it; and a JSON file
attached to it (:func:`json_attachment`), for players who attach what ``pbem sign``
wrote. Feeding a whole mailbox and sending the reports is :mod:`pbem.transport`. Reading the
armored block or the JSON in that text is :mod:`pbem.envelope`'s job, which also
re-exports :func:`extract_body_from_email`.

Also here, because mail is where they matter: the line splitting that keeps the
characters ``str.splitlines`` would split on, and the size limit checked before any
parsing. Like :mod:`pbem.envelope` this is a pure library: every failure a user can
cause raises :class:`~pbem.errors.EnvelopeError` with a message that says what to do.
"""

from __future__ import annotations

import re
from email import policy
from email.headerregistry import BaseHeader, HeaderRegistry
from email.message import EmailMessage, Message
from email.parser import BytesParser
from html.parser import HTMLParser

from pbem.errors import EnvelopeError

__all__ = [
    "MAX_SUBMISSION_BYTES",
    "READING",
    "check_size",
    "extract_body_from_email",
    "json_attachment",
    "looks_like_email",
    "split_lines",
]

#: Larger inputs are refused before any parsing (a submission is a few kilobytes).
MAX_SUBMISSION_BYTES = 1_000_000


class _RememberingRegistry(HeaderRegistry):
    """``policy.default``'s header factory, remembering the headers it parsed last. Reading a
    message asks for the same header again and again (finding the body reads its
    Content-Type about seven times), and each ask parses the header anew; a header is an
    immutable ``str`` made only from its name and value, so the same two give the same one."""

    _KEEP = 4096

    def __init__(self) -> None:
        super().__init__()
        self._made: dict[tuple[str, str], BaseHeader] = {}

    def __call__(self, name: str, value: str) -> BaseHeader:
        key = (name, value)
        made = self._made.get(key)
        if made is None:
            if len(self._made) >= self._KEEP:
                self._made.clear()
            made = self._made[key] = super().__call__(name, value)
        return made


#: The policy a message's body and attachments are read with: ``policy.default`` (modern headers,
#: ``EmailMessage``) whose headers are parsed once per message, not once per look
#: (:class:`_RememberingRegistry`). Reading a few headers once (the inbox's From, Subject and
#: Message-ID; a plain reply's) keeps ``policy.default``: nothing is asked twice there.
READING = policy.default.clone(header_factory=_RememberingRegistry())


def split_lines(text: str) -> list[str]:
    # Not str.splitlines: it also splits on \v, \f, \x1c-\x1e, \x85 and U+2028/9,
    # which must stay inside a line (and are then rejected by validation).
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


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


def _part_text(part: Message) -> str:
    payload = part.get_payload(decode=True)
    data = payload if isinstance(payload, bytes) else b""
    charset = part.get_content_charset() or "us-ascii"
    for candidate in (charset, "utf-8"):
        try:
            return data.decode(candidate)
        except (LookupError, ValueError):  # unknown charset, undecodable bytes
            continue
    # Mislabelled 8-bit text: keep what can be read; a damaged order line then
    # fails the signature check instead of hiding the whole message.
    return data.decode("utf-8", errors="replace")


def _unflow(text: str, delsp: bool) -> str:
    """Undo RFC 3676 format=flowed soft line breaks (Thunderbird's default)."""
    out: list[str] = []
    pending: str | None = None
    pending_depth = 0

    def emit(depth: int, content: str) -> None:
        out.append(">" * depth + " " + content if depth else content)

    for line in split_lines(text):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]  # space-stuffing
        flowed = content.endswith(" ") and content != "-- "
        if flowed and delsp:
            content = content[:-1]
        if pending is not None and depth == pending_depth:
            pending += content
        else:
            if pending is not None:
                emit(pending_depth, pending)
            pending, pending_depth = content, depth
        if not flowed:
            emit(pending_depth, pending)
            pending = None
    if pending is not None:
        emit(pending_depth, pending)
    return "\n".join(out)


class _HtmlText(HTMLParser):
    """Text of an HTML mail body as a mail reader shows it; blockquotes become '> '."""

    _BLOCK = frozenset(
        ["address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "ol", "p", "pre", "section", "table", "td", "th", "tr", "ul"]
    )
    _SKIP = frozenset({"head", "script", "style", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self._parts: list[str] = []
        self._line_quoted = False
        self._line_pre = False
        self._quote = 0
        self._pre = 0
        self._skip = 0

    def _break(self) -> None:
        text = "".join(self._parts).rstrip()
        if not self._line_pre:
            text = text.lstrip()
            if text == "--":
                text = "-- "  # the signature separator, written "-- <br>"
        self.lines.append("> " + text if self._line_quoted else text)
        self._parts, self._line_quoted, self._line_pre = [], False, False

    def _soft_break(self) -> None:
        if "".join(self._parts).strip():
            self._break()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self._skip += 1
        elif tag == "br":
            self._break()
        elif tag in self._BLOCK:
            self._soft_break()
            self._quote += tag == "blockquote"
            self._pre += tag == "pre"

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag in self._BLOCK:
            self._soft_break()
            if tag == "blockquote":
                self._quote = max(0, self._quote - 1)
            if tag == "pre":
                self._pre = max(0, self._pre - 1)

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        data = data.replace("\xa0", " ")
        if self._quote:
            self._line_quoted = True
        if self._pre:
            for index, piece in enumerate(split_lines(data)):
                if index:
                    self._break()
                self._line_pre = True
                self._parts.append(piece)
        else:
            self._parts.append(re.sub(r"\s+", " ", data))

    def text(self) -> str:
        self.close()
        if self._parts:
            self._break()
        return "\n".join(self.lines)


def _html_to_text(html: str) -> str:
    parser = _HtmlText()
    parser.feed(html)
    return parser.text()


_ARMOR_MARK = "-----BEGIN PBEM ORDERS-----"  # pbem.envelope.ARMOR_BEGIN (envelope imports this module)


def _may_hold_submission(text: str) -> bool:
    return _ARMOR_MARK in text or text.lstrip("\ufeff \t\r\n")[:1] in ("{", "[")


def _extract_body(raw: bytes) -> str:
    if raw.startswith(b"From "):  # mbox separator line
        raw = raw.partition(b"\n")[2]
    message = BytesParser(policy=READING).parsebytes(raw)
    assert isinstance(message, EmailMessage)  # guaranteed by policy.default's message factory
    part = message.get_body(preferencelist=("plain",))
    if part is not None:
        text = _part_text(part)
        if str(part.get_param("format", "")).lower() == "flowed":
            text = _unflow(text, str(part.get_param("delsp", "")).lower() == "yes")
        if not _may_hold_submission(text):  # (the HTML part is looked for only then: a walk of the parts)
            html = message.get_body(preferencelist=("html",))
            if html is not None and html is not part:
                # multipart/alternative whose plain part lost the block (some mail programs
                # write only a stub there): the HTML part is what the player saw and sent
                shown = _html_to_text(_part_text(html))
                if _ARMOR_MARK in shown:
                    return shown
        return text
    html = message.get_body(preferencelist=("html",))
    if html is not None:
        return _html_to_text(_part_text(html))
    raise EnvelopeError(
        "the email has no text part (text/plain or text/html); put the block that "
        "`pbem sign` printed in the message body"
    )


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
    if raw.startswith(b"From "):  # mbox separator line
        raw = raw.partition(b"\n")[2]
    try:
        message = BytesParser(policy=READING).parsebytes(raw)
        for part in message.walk():
            if part.is_multipart():
                continue
            name = str(part.get_filename() or "").strip().lower()
            if part.get_content_type() == "application/json" or name.endswith(".json"):
                return _part_text(part)
    except Exception:  # noqa: BLE001 - broken MIME: no attachment can be read from it
        return None
    return None


def extract_body_from_email(raw: bytes) -> str:
    """The text body of a full RFC 822 message: the text/plain part (transfer
    encoding and charset decoded, format=flowed joined), else the text/html part
    with its tags stripped."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogatepass")
    check_size(len(raw))
    try:
        return _extract_body(raw)
    except EnvelopeError:
        raise
    except Exception as exc:  # the email package can fail in many ways on broken mail
        raise EnvelopeError(
            f"the email message cannot be read ({type(exc).__name__}); paste the block "
            "that `pbem sign` printed into a new plain-text message"
        ) from exc
