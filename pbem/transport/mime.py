"""Reading a message's parts with the standard library's ``email`` package: the text/plain part
(transfer encoding and charset decoded, RFC 3676 ``format=flowed`` soft line breaks joined), the
text/html part turned into text as a mail reader shows it, and a JSON file attached.

:mod:`pbem.transport.message` imports this module only when a submission is a whole email
message: the ``email`` package and its policies take about 30 ms to import, which a signed JSON
file (``pbem submit``, and ``pbem verify`` replaying a game whose orders came as files) never needs.
"""

from __future__ import annotations

import re
from email import policy
from email.headerregistry import BaseHeader, HeaderRegistry
from email.message import EmailMessage, Message
from email.parser import BytesParser
from html.parser import HTMLParser

from pbem.core.orders import split_lines
from pbem.errors import EnvelopeError

__all__ = ["READING", "attached_json", "body_text"]


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


_ARMOR_MARK = "-----BEGIN PBEM ORDERS-----"  # pbem.envelope.ARMOR_BEGIN (envelope imports pbem.transport.message)


def _may_hold_submission(text: str) -> bool:
    return _ARMOR_MARK in text or text.lstrip("\ufeff \t\r\n")[:1] in ("{", "[")


def body_text(raw: bytes) -> str:
    """The text body of a full RFC 822 message (see :func:`pbem.transport.message.extract_body_from_email`,
    which checks the size first and turns the email package's own failures into an EnvelopeError)."""
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


def attached_json(raw: bytes) -> str | None:
    """The text of the first JSON file attached to a full RFC 822 message, or None (see
    :func:`pbem.transport.message.json_attachment`, which checks the size first)."""
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
