"""The outbox: ``pbem send`` delivers every unsent report, reminder and reply over SMTP (or into a
folder of .eml files), each recipient only his own, marked sent the moment the server accepted it;
the tournaments' mail too. See docs/cli.md, "pbem send", for threads, folding and the map as PNG."""

from __future__ import annotations

import contextlib
import hashlib
import re
import smtplib
import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, parseaddr
from pathlib import Path
from typing import Any, Protocol

from pbem.decide import MODERATOR
from pbem.errors import PbemError
from pbem.records import kept_on_demand
from pbem.replies import NOTICE
from pbem.rows import OutboxRow
from pbem.store import Home
from pbem.transport.common import _MAIL_POLICY, MailError, _printable, exclusive


class Transport(Protocol):
    def deliver(self, message: EmailMessage, to: str, name: str) -> str:
        """Hand over one message for one address; return where it went. Raises
        :class:`Refused` for this message, :class:`MailError` when nothing more can be sent."""

    def close(self) -> None:
        """Let go of the connection, if any."""


class Refused(Exception):
    """The server refused this one message (the next one may still go)."""


class ChunkingSMTP(smtplib.SMTP):
    """:class:`smtplib.SMTP` that hands the message over with BDAT (RFC 3030 CHUNKING) when the
    server offers it, and with DATA otherwise.

    With DATA the server takes the message when it reads the final dot, and a client killed after
    writing that dot cannot stop it: the message is delivered although pbem never saw the 250, and
    the next run sends it again. That window lasts as long as the server takes to read everything
    still in the socket buffers (a large report mail on a slow server: tens of milliseconds).
    With CHUNKING the whole message goes as one chunk the server acknowledges, then an empty last
    chunk (``BDAT 0 LAST``): the server has read every byte before pbem commits to the message,
    and what is left of the window is the server's answer to that last empty chunk."""

    def data(self, msg: Any) -> tuple[int, bytes]:
        if not self.has_extn("chunking"):
            return super().data(msg)
        body = msg.encode("ascii") if isinstance(msg, str) else bytes(msg)  # smtplib.sendmail gives CRLF bytes
        self.send(b"BDAT %d\r\n" % len(body) + body)
        code, reply = self.getreply()
        if code != 250:
            return code, reply  # smtplib.sendmail resets the transaction and raises SMTPDataError
        self.putcmd("BDAT", "0 LAST")
        return self.getreply()


class SmtpTransport:
    """Delivery through one SMTP connection, opened at the first message (BDAT when the server
    offers CHUNKING, see :class:`ChunkingSMTP`)."""

    def __init__(self, host: str, port: int, sender: str, *, starttls: bool = False, user: str | None = None,
                 password: str | None = None, timeout: float = 60.0) -> None:
        self.host, self.port, self.sender = host, port, sender
        self.starttls, self.user, self.password, self.timeout = starttls, user, password, timeout
        self._smtp: ChunkingSMTP | None = None

    def _connection(self) -> ChunkingSMTP:
        if self._smtp is None:
            where = f"{self.host}:{self.port}"
            try:
                smtp = ChunkingSMTP(self.host, self.port, timeout=self.timeout)
                smtp.ehlo()
                if self.starttls:
                    smtp.starttls(context=ssl.create_default_context())
                    smtp.ehlo()
                if self.user:
                    smtp.login(self.user, self.password or "")
            except smtplib.SMTPAuthenticationError as exc:
                raise MailError(f"the mail server {where} refused the login of {self.user!r}: "
                                f"{exc.smtp_code} {_text(exc.smtp_error)}; check --user and PBEM_SMTP_PASSWORD") from None
            except (smtplib.SMTPException, OSError) as exc:
                raise MailError(f"cannot use the mail server {where}: {exc or type(exc).__name__}; "
                                "check --smtp HOST:PORT (and --starttls)") from None
            self._smtp = smtp
        return self._smtp

    def deliver(self, message: EmailMessage, to: str, name: str) -> str:
        smtp = self._connection()
        try:
            smtp.send_message(message, from_addr=parseaddr(self.sender)[1], to_addrs=[to])
        except smtplib.SMTPRecipientsRefused as exc:
            code, text = next(iter(exc.recipients.values()))
            raise Refused(f"{code} {_text(text)}") from None
        except (smtplib.SMTPSenderRefused, smtplib.SMTPDataError) as exc:
            raise Refused(f"{exc.smtp_code} {_text(exc.smtp_error)}") from None
        except (smtplib.SMTPException, OSError) as exc:
            self._smtp = None
            raise MailError(f"the mail server {self.host}:{self.port} stopped answering: "
                            f"{exc or type(exc).__name__}") from None
        return f"{self.host}:{self.port}"

    def close(self) -> None:
        if self._smtp is not None:
            with contextlib.suppress(smtplib.SMTPException, OSError):
                self._smtp.quit()
            self._smtp = None


def _text(value: bytes | str) -> str:
    return _printable(value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value))


class DryRunTransport:
    """Writes each message as ``DIR/<game>/<name>.eml`` instead of sending it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def deliver(self, message: EmailMessage, to: str, name: str) -> str:
        path = self.folder / f"{name}.eml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(message.as_bytes())
        return str(path)

    def close(self) -> None:
        pass


@dataclass
class SendResult:
    game: str
    step: int
    kind: str
    recipient: str
    to: str
    rows: list[int]
    status: str  # sent | written | refused | no address | stale | held
    detail: str = ""
    submission: int | None = None  # a reply: the submission it answers
    unit: str = "step"  # "round": a tournament's mail
    folded: list[int] = field(default_factory=list)  # a report: the earlier steps folded into it

    def line(self) -> str:
        what = f"{self.game}: {self.unit} {self.step} {self.kind} for {self.recipient}"
        if self.submission is not None:
            what += f" (submission #{self.submission})"
        if self.status == "no address":
            return f"{what}: not sent, {self.recipient} has no email address"
        if self.status == "stale":
            return f"{what}: not sent, the step no longer waits for {self.recipient}"
        if self.status == "held" and self.kind == "reply":
            return f"{what}: held, it goes at the top of his next report mail"
        if self.status == "held":
            return f"{what}: held, it asks nothing of {self.recipient}; it goes with his next mail that does"
        if self.folded:
            what += f" (with step{'s' if len(self.folded) > 1 else ''} {', '.join(map(str, self.folded))})"
        if self.status == "refused":
            return f"{what} -> {self.to}: refused by the server ({self.detail}); it stays in the outbox"
        return f"{what} -> {self.to}: {self.status}" + (f" ({self.detail})" if self.status == "written" else "")

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "step": self.step, "kind": self.kind, "recipient": self.recipient,
                "to": self.to, "rows": self.rows, "status": self.status, "detail": self.detail,
                "submission": self.submission, "unit": self.unit, "folded": self.folded}


def _address(text: str) -> str:
    """The plain address of a registered email, or '' when it is not a usable one."""
    name, addr = parseaddr(text or "")
    ok = "@" in addr and not any(c.isspace() or not c.isprintable() for c in addr)
    return addr if ok else ""


def _domain(sender: str) -> str:
    return parseaddr(sender)[1].rpartition("@")[2] or "pbem.invalid"


def outgoing_id(game: str, rows: Sequence[OutboxRow], sender: str) -> str:
    """The Message-ID of the email made of ``rows``: the same message gets the same id if it
    must be sent again after a crash, and a later mail can name it (``In-Reply-To``)."""
    first = rows[0]
    key = f"{game}/{first.created}/{first.step}/{first.kind}/{first.recipient}/{sorted(r.id or 0 for r in rows)}"
    return f"<pbem.{hashlib.sha256(key.encode()).hexdigest()[:32]}@{_domain(sender)}>"


def thread_root(game: str, recipient: str, sender: str) -> str:
    """The Message-ID every mail of one game to one recipient refers to first (``References``):
    a message never sent, which mail programs show as the head of the game's thread."""
    key = f"{game}/thread/{recipient}"
    return f"<pbem.{hashlib.sha256(key.encode()).hexdigest()[:32]}@{_domain(sender)}>"


def answer_footer(game: str, step: int, side: str, mode: str, language: str = "en") -> str:
    """The three lines that end a player's report mail: exactly how to answer it, for his mode
    (``password`` or ``key``), in his ``language``."""
    from pbem.locale import translations

    _ = translations(language).gettext
    values = {"game": game, "step": step, "side": side}
    if mode == "password":
        return _("To answer: reply to this mail and keep its subject ([%(game)s] step %(step)s).\n"
                 "Write your orders, one per line, and one line: password: YOUR PASSWORD\n"
                 "Quoted text and your signature are left out; a reply tells you what was accepted.\n") % values
    return _("To answer: put your orders, one per line, in orders.txt and run\n"
             "  pbem sign --game %(game)s --side %(side)s --step %(step)s --key YOUR.key --armor < orders.txt\n"
             "then paste the block it prints into a reply to this mail (or attach what --out writes).\n") % values


def build_message(game: str, rows: Sequence[OutboxRow], sender: str, to: str, *, in_reply_to: str = "",
                  references: Sequence[str] = (), footer: str = "", header: str = "") -> EmailMessage:
    """One email from one recipient's rows of one step and kind: the text as the body,
    the HTML as its alternative. Every row must be for the same recipient. ``in_reply_to``
    and ``references`` (Message-IDs) thread it in the recipient's mail program; ``header``
    opens the text (a reply folded into the report), ``footer``
    ends the text and the HTML (how to answer)."""
    assert rows and len({(r.step, r.kind, r.recipient, r.submission_id) for r in rows}) == 1, "one recipient's rows only"
    text = next((r.body for r in rows if r.format == "text"), None)
    html = next((r.body for r in rows if r.format == "html"), None)
    first = rows[0]
    msg = EmailMessage(policy=_MAIL_POLICY)
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = first.subject
    msg["Date"] = formatdate(usegmt=True)
    msg["Message-ID"] = outgoing_id(game, rows, sender)
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
    if references:
        msg["References"] = " ".join(dict.fromkeys(references))
    msg["Auto-Submitted"] = "auto-generated"  # RFC 3834: no vacation replies to reports
    mail_html, png = (html, None) if html is None else mail_map(html, msg["Message-ID"])
    if header and text is not None:
        text = header.rstrip("\n") + "\n\n" + text
    if footer and text is not None:
        text = text.rstrip("\n") + "\n\n" + footer
    if footer and mail_html is not None:
        import html as htmllib

        shown = "<br>".join(htmllib.escape(x) for x in footer.splitlines())
        block = f'<p class="answer" style="border-top:1px solid #c9b99a;padding-top:6px">{shown}</p>\n'
        at = mail_html.rfind("</body>")
        mail_html = mail_html[:at] + block + mail_html[at:] if at >= 0 else mail_html + block
    if text is not None:
        msg.set_content(text)
        if mail_html is not None:
            msg.add_alternative(mail_html, subtype="html")
    else:
        msg.set_content(mail_html or "", subtype="html")
    if png is not None:
        cid, data = png
        html_part = msg.get_body(preferencelist=("html",))
        assert html_part is not None
        html_part.add_related(data, maintype="image", subtype="png", cid=f"<{cid}>", filename="map.png",
                              disposition="inline")
    if html is not None and png is not None:  # the whole report, map included, for any browser
        name = f"{game}-step-{first.step:03d}-{first.recipient}.html"
        # quoted-printable: the report is nearly all ASCII, a sixth smaller than in base64
        msg.add_attachment(html, subtype="html", filename=name, cte="quoted-printable")
    return msg


#: The map in a mail is a PNG this many pixels wide (the SVG's own proportions).
MAP_PNG_WIDTH = 1600


_SVG_RE = re.compile(r"<svg\b.*?</svg>", re.S)


_DESC_RE = re.compile(r'<desc id="map-desc">(.*?)</desc>', re.S)


def map_png(svg: str, width: int = MAP_PNG_WIDTH) -> bytes:
    """The map drawn as a PNG from its SVG, by resvg (a Rust renderer shipped as a wheel: no
    system library; it takes the machine's fonts), on white, then stored with a palette of 256
    colours by Pillow: the map is flat colours and their anti-aliased edges, so it looks the
    same at a third of the bytes of resvg's RGBA (about 125 KB instead of 380 KB at 1600 px)."""
    import io

    import resvg_py
    from PIL import Image

    drawn = Image.open(io.BytesIO(bytes(resvg_py.svg_to_bytes(svg_string=svg, width=width, background="white"))))
    paletted = drawn.convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    paletted.save(out, "PNG")
    return out.getvalue()


def mail_map(html: str, message_id: str) -> tuple[str, tuple[str, bytes] | None]:
    """The HTML report as a mail shows it: the webmail programs that matter drop inline SVG, so
    the report's map (its first ``<svg>``) becomes an ``<img>`` of a PNG drawn from that SVG,
    referenced by Content-ID; returns the HTML and (content id, PNG), or the HTML unchanged
    and None when it has no map."""
    import html as htmllib

    found = _SVG_RE.search(html)
    if found is None:
        return html, None
    svg = found.group(0)
    cid = f"map.{message_id.strip('<>')}"
    desc = _DESC_RE.search(svg)
    alt = htmllib.escape(htmllib.unescape(desc.group(1)) if desc else "The map", quote=True)
    img = (f'<img src="cid:{cid}" alt="{alt}" width="{MAP_PNG_WIDTH}" '
           'style="display:block;width:100%;max-width:100%;height:auto;border:0">')
    return html[: found.start()] + img + html[found.end():], (cid, map_png(svg))


def send_outbox(home: Home, transport: Transport, sender: str, *, game: str | None = None, mark: bool = True,
                on_result: Callable[[SendResult], None] | None = None) -> tuple[list[SendResult], str]:
    """Send every unsent outbox row with a body, game by game, step by step. Returns the
    results and, when the transport failed and the run stopped, why ('' otherwise).
    ``mark=False`` (a dry run) leaves every row unsent."""
    results: list[SendResult] = []
    if not home.path.is_dir():
        raise MailError(f"no game folder {home.path}; pass the right --home")
    with exclusive(home.path / ".pbem-send.lock", "send"):
        for gid in [game] if game else home.games():
            with home.open(gid) as st:
                players = st.players()
                addresses = {p.side: p.email for p in players}
                modes = {p.side: "password" if p.password_hash else "key" for p in players}
                addresses[MODERATOR] = st.game().moderator_email
                status = st.status()
                groups: dict[tuple[int, str, str, int | None], list[OutboxRow]] = {}
                for row in st.outbox(kind=None, unsent=True):
                    if row.body or kept_on_demand(row):  # (not one whose rendering is unfinished)
                        groups.setdefault((row.step, row.kind, row.recipient, row.submission_id), []).append(row)
                threads = _threads(gid, st, groups, sender)
                held = _held(st, groups)
                # A player who folds gets the replies that accept his orders (or note a resend) at the top
                # of his next report mail, not on their own: one mail per step. A rejection goes at once.
                folding = st.folding()
                sids = [sid for (_, kind, who, sid) in groups if kind == "reply" and sid is not None and folding.get(who)]
                verdicts = st.verdicts(sids)
                sent_with_report: set[tuple[int, str, str, int | None]] = set()
                waiting_replies = {key for key in groups if key[1] == "reply" and key[3] in verdicts
                                   and verdicts[key[3]] != "rejected"}
                for (step, kind, recipient, sid), rows in groups.items():
                    if (step, kind, recipient, sid) in sent_with_report:
                        continue
                    if (step, kind, recipient, sid) in waiting_replies:
                        res = SendResult(gid, step, kind, recipient, "", [r.id or 0 for r in rows], "held",
                                         submission=sid)
                        results.append(res)
                        if on_result is not None:
                            on_result(res)
                        continue  # sent with his next report (below)
                    to = addresses.get(recipient) if recipient in addresses else _signer_address(home, gid, recipient)
                    res = SendResult(gid, step, kind, recipient, _address(to or ""),
                                     [r.id or 0 for r in rows], "", submission=sid)
                    if kind == "report" and (step, recipient) in held:
                        res.status = "held"
                    elif kind == "reminder" and (step != status.step or recipient in status.received
                                                 or recipient not in status.awaiting):
                        res.status = "stale"
                    elif not res.to:
                        res.status = "no address"
                    else:
                        parent, refs = threads.get((step, kind, recipient, sid), ("", ()))
                        footer = answer_footer(gid, step, recipient, modes[recipient], rows[0].language or "en") \
                            if kind == "report" and recipient in modes else ""
                        if kind == "report":  # the held reports before it go with it (marked sent together)
                            earlier = sorted(s for (s, who) in held if who == recipient and s < step)
                            for s in earlier:
                                res.rows += [r.id or 0 for r in groups[(s, kind, recipient, None)]]
                                held.discard((s, recipient))
                            res.folded = earlier
                        header = ""
                        if kind == "report":
                            for key in sorted(k for k in waiting_replies if k[2] == recipient):
                                res.rows += [r.id or 0 for r in groups[key]]
                                header += groups[key][0].body or ""
                                waiting_replies.discard(key)
                                sent_with_report.add(key)
                        # a report kept on demand (it was to go to no one) is mailed after all: rendered now,
                        # and stored with the mark that it was sent (a dry run stores nothing)
                        st.with_bodies(rows, store=mark)
                        msg = build_message(gid, rows, sender, res.to, in_reply_to=parent, references=refs,
                                            footer=footer, header=header)
                        name = f"{gid}/step-{step:03d}-{kind}-{recipient}" + (f"-{sid}" if sid is not None else "")
                        try:
                            if mark:  # the "sent" mark commits right when the server has accepted the message
                                with st.sending(res.rows):
                                    where = transport.deliver(msg, res.to, name)
                            else:
                                where = transport.deliver(msg, res.to, name)
                        except Refused as exc:
                            res.status, res.detail = "refused", str(exc)
                        except MailError as exc:
                            return results, str(exc)
                        else:
                            if mark:
                                res.status = "sent"
                            else:
                                res.status, res.detail = "written", where
                    results.append(res)
                    if on_result is not None:
                        on_result(res)
        if game is None:
            failure = _send_tournament_mail(home, transport, sender, mark, results, on_result)
            if failure:
                return results, failure
    return results, ""


def send_tournament_mail(home: Home, transport: Transport, sender: str, *, mark: bool = True,
                         on_result: Callable[[SendResult], None] | None = None) -> tuple[list[SendResult], str]:
    """Only the tournaments' mail (``send_outbox`` without ``game`` sends it after the games')."""
    results: list[SendResult] = []
    with exclusive(home.path / ".pbem-send.lock", "send"):
        failure = _send_tournament_mail(home, transport, sender, mark, results, on_result)
    return results, failure


def _send_tournament_mail(home: Home, transport: Transport, sender: str, mark: bool, results: list[SendResult],
                          on_result: Callable[[SendResult], None] | None) -> str:
    """Every unsent mail of every tournament (pairings, byes, standings), one message each, to the
    player's registered address; marked sent once the server accepted it."""
    from pbem.tournament import Tournament, tournament_names

    for name in tournament_names(home):
        with Tournament(home, name) as t:
            addresses = {e.name: e.email for e in t.entrants()}
            for row in t.mail(unsent=True):
                res = SendResult(f"tournament {name}", row.round, row.kind, row.recipient,
                                 _address(getattr(row, "address", None) or addresses.get(row.recipient, "")),
                                 [row.id or 0], "", unit="round")
                if not res.to:
                    res.status = "no address"
                else:
                    msg = EmailMessage(policy=_MAIL_POLICY)
                    msg["From"], msg["To"], msg["Subject"] = sender, res.to, row.subject
                    msg["Date"] = formatdate(usegmt=True)
                    key = f"tournament/{name}/{row.id}/{row.created}"
                    domain = parseaddr(sender)[1].rpartition("@")[2] or "pbem.invalid"
                    msg["Message-ID"] = f"<pbem.{hashlib.sha256(key.encode()).hexdigest()[:32]}@{domain}>"
                    msg["Auto-Submitted"] = "auto-generated"
                    msg.set_content(row.body)
                    try:
                        where = transport.deliver(msg, res.to, f"tournament-{name}/round-{row.round:02d}-{row.kind}-"
                                                               f"{row.id}")
                    except Refused as exc:
                        res.status, res.detail = "refused", str(exc)
                    except MailError as exc:
                        return str(exc)
                    else:
                        if mark:
                            t.mark_sent(res.rows)
                            res.status = "sent"
                        else:
                            res.status, res.detail = "written", where
                results.append(res)
                if on_result is not None:
                    on_result(res)
    return ""


def _held(st: Any, groups: dict[tuple[int, str, str, int | None], list[OutboxRow]]) -> set[tuple[int, str]]:
    """The (step, side) reports not to send now: steps that ask nothing of a player who folds them
    (:meth:`pbem.store.Store.folding`); each goes, marked sent, with his next report that asks. A
    substitute's first report (:meth:`pbem.store.Store.handovers`) is never held."""
    folding = st.folding()
    steps = [step for (step, kind, who, _) in groups if kind == "report" and folding.get(who)]
    if not steps:
        return set()
    asks, handovers = st.asks(steps), st.handovers()
    return {(step, who) for (step, kind, who, _) in groups if kind == "report" and folding.get(who)
            and not asks[step][1] and who not in asks[step][0] and (step, who) not in handovers}


def _signer_address(home: Home, game: str, recipient: str) -> str:
    """A reply to a player who signed for this game with his key of another game (recipient
    ``SIDE@GAME``, see :func:`pbem.replies.queue_reply`): his address registered in that game."""
    side, _, other = recipient.rpartition("@")
    if not side or other == game or other not in home.games():
        return ""
    try:
        with home.open(other, recover=False) as st:
            return next((p.email for p in st.players() if p.side == side), "")
    except (PbemError, OSError):
        return ""


def _threads(game: str, st: Any, groups: dict[tuple[int, str, str, int | None], list[OutboxRow]],
             sender: str) -> dict[tuple[int, str, str, int | None], tuple[str, tuple[str, ...]]]:
    """Per group of rows to send, the message it answers and its references: a reply answers the
    player's own message (the one that carried the submission), a report the recipient's report
    of the step before; all of one game and recipient refer to the same thread head."""
    sids = [sid for (_, kind, _, sid) in groups if sid is not None]
    theirs = st.message_ids(sids)
    earlier: dict[str, list[tuple[int, list[OutboxRow]]]] = {}  # recipient -> (step, rows) of its reports
    if any(kind == "report" for (_, kind, _, _) in groups):
        by_step: dict[tuple[str, int], list[OutboxRow]] = {}
        for row in st.outbox(kind="report"):
            by_step.setdefault((row.recipient, row.step), []).append(row)
        for (who, step), rows in sorted(by_step.items()):
            earlier.setdefault(who, []).append((step, rows))
    folding = st.folding()
    handovers = st.handovers() if earlier and any(folding.values()) else set()
    out: dict[tuple[int, str, str, int | None], tuple[str, tuple[str, ...]]] = {}
    for key in groups:
        step, kind, recipient, sid = key
        root = thread_root(game, recipient, sender)
        parent = ""
        if sid is not None and kind != NOTICE:  # a reply answers the player's own message
            parent = theirs.get(sid, "")
        elif kind == "report":
            for s, rows in reversed([(s, rows) for s, rows in earlier.get(recipient, []) if s < step]):
                if folding.get(recipient) and (s, recipient) not in handovers:  # a held report was never a mail of its own
                    awaiting, over = st.asks([s])[s]
                    if not over and recipient not in awaiting:
                        continue
                parent = outgoing_id(game, rows, sender)
                break
        out[key] = (parent or root, (root, parent) if parent else (root,))
    return out


def send_summary(results: Sequence[SendResult], *, dry_run: bool = False) -> list[str]:
    """The closing lines of ``pbem send``: recipients without an address (once per game
    and recipient, not once per message), then the counts."""
    lines: list[str] = []
    missing: dict[tuple[str, str], int] = {}
    counts: dict[str, int] = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
        if r.status == "no address":
            missing[(r.game, r.recipient)] = missing.get((r.game, r.recipient), 0) + 1
    for (gid, who), n in missing.items():
        where = ("`pbem new --moderator-email`" if who == MODERATOR else "the player's registration"
                 if not gid.startswith("tournament ") else "`pbem tournament add --email`")
        lines.append(f"{gid}: {who} has no email address ({where}): {n} message(s) not sent")
    done = counts.get("written" if dry_run else "sent", 0)
    parts = [f"{done} message(s) {'written' if dry_run else 'sent'}"]
    if counts.get("refused"):
        parts.append(f"{counts['refused']} refused (they stay in the outbox)")
    if missing:
        parts.append(f"{counts['no address']} without an address")
    if counts.get("stale"):
        parts.append(f"{counts['stale']} reminder(s) no longer needed")
    if counts.get("held"):
        parts.append(f"{counts['held']} held for the player's next mail that asks something of him")
    lines.append("; ".join(parts) if results else "nothing to send")
    return lines

