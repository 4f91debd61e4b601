"""The email transport: feed a mailbox to the games (``pbem inbox``) and deliver the
outbox (``pbem send``). Standard library only (:mod:`mailbox`, :mod:`smtplib`).

Reading a mailbox (:func:`read_inbox`): every message of an mbox file or a Maildir
folder, in delivery order, is given exactly as stored to the game its envelope names.
Each game is opened once per run and gets all its new messages at once
(:meth:`pbem.store.Store.receive_many`): their bytes and their identity (the SHA-256 of
the message and its Message-ID) are stored in one commit, before anything is decided,
queued or rendered; the reports are rendered once at the end. Exactly once rests on that
identity in the game file: a message fed again (after a crash, a write failure, a lost
seen-list, or delivered twice by the mail server) is recognised there and neither stored
nor answered again; it is counted as processed before.

A message whose submission cannot be read (no armored block in the body and no JSON
file attached) or that names a game the folder does not hold is reported with its
From, Subject and Message-ID and left in the mailbox untouched: no game file is
written, no reply is queued, so looking at it again is harmless. Every message looked
at is also remembered by its SHA-256 in ``<home>/inbox-seen.jsonl`` (one JSON line per
message, synced once per run): only a fast filter, so a later run does not parse and
route again what it has seen, and the record of the undeliverable ones; ``--retry``
looks at those again. In a Maildir a delivered message is also moved to ``cur`` with
the seen flag.

Sending (:func:`send_outbox`): every outbox row (reports, reminders, replies) with a
body and no ``sent`` time becomes one email per (game, step, kind, recipient, submission):
the text report as the body and the HTML report as its ``text/html`` alternative, addressed
to that recipient's registered address and nobody else (one RCPT per message); each reply to
a submission (:mod:`pbem.replies`) is its own email. A row's "sent" mark is written in a
transaction opened just before its message goes out and committed as soon as the server
accepted it (:meth:`pbem.store.Store.sending`; a WAL append, no fsync), so a crash resends
at most the message in flight, only when the kill falls between the acceptance and that
commit, and with the same Message-ID, so mail readers show it once.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import mailbox as stdlib_mailbox
import os
import re
import smtplib
import ssl
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from email.utils import formatdate, parseaddr
from pathlib import Path
from typing import Any, Protocol

from pbem.decide import MODERATOR, Verdict, format_time
from pbem.envelope import parse_submission
from pbem.errors import EnvelopeError, PbemError
from pbem.plainreply import plain_reply_game
from pbem.store import Home, MessageKey, OutboxRecord, Receipt, _utcnow

__all__ = [
    "SEEN_FILE",
    "DryRunTransport",
    "InboxRun",
    "MailError",
    "MessageResult",
    "Refused",
    "SendResult",
    "SmtpTransport",
    "Transport",
    "build_message",
    "read_inbox",
    "send_outbox",
    "send_summary",
]

#: In the home folder: one JSON line per mailbox message already looked at.
SEEN_FILE = "inbox-seen.jsonl"
DELIVERED, NOT_DELIVERED, FAILED = "delivered", "not delivered", "error"
# Reports go out as 7-bit text (quoted-printable or base64 where needed): any server takes them.
_MAIL_POLICY = policy.default.clone(cte_type="7bit")


class MailError(PbemError):
    """A mailbox that cannot be read, a mail server that cannot be used."""


def _printable(text: str, limit: int = 200) -> str:
    """Header text from strangers, safe to print on a terminal (no control characters)."""
    clean = "".join(c if c.isprintable() else "?" for c in " ".join(text.split()))
    return clean if len(clean) <= limit else clean[: limit - 3] + "..."


@contextlib.contextmanager
def exclusive(lock_file: Path, what: str) -> Iterator[None]:
    """One ``pbem inbox`` (or ``pbem send``, ``pbem tick``) at a time per home folder (POSIX
    advisory lock, released by the kernel when the process ends, however it ends)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no lock
        yield
        return
    with open(lock_file, "a+b") as f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise MailError(f"another `pbem {what}` is running on {lock_file.parent}; wait for it to finish") from None
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)




# ---- reading a mailbox ---------------------------------------------------------------------


@dataclass
class MessageResult:
    """What happened to one mailbox message."""

    digest: str  # SHA-256 of the message's bytes
    message_id: str
    sender: str  # the From header as written (not trusted: only shown)
    subject: str
    outcome: str  # delivered | not delivered | error
    game: str | None = None
    receipt: Receipt | None = None
    reason: str = ""

    def line(self) -> str:
        if self.outcome == DELIVERED and self.receipt is not None and self.receipt.again:
            r = self.receipt
            return (f"{self.game}: received before as submission #{r.submission} ({r.verdict.value}); "
                    "nothing stored or answered again")
        if self.outcome == DELIVERED and self.receipt is not None:
            r = self.receipt
            text = f"{self.game}: {r.side}, step {r.step}: {r.verdict.value} (submission #{r.submission})"
            if r.verdict is not Verdict.ACCEPTED and r.reason:
                text += f": {r.reason}"
            return text
        what = "not delivered" if self.outcome == NOT_DELIVERED else "error, try again"
        return (f"{what}: {self.reason} [From: {self.sender or '-'}; Subject: {self.subject or '-'}; "
                f"Message-ID: {self.message_id or '-'}]")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"outcome": self.outcome, "message_id": self.message_id, "from": self.sender,
                               "subject": self.subject, "digest": self.digest, "game": self.game,
                               "reason": self.reason}
        if self.receipt is not None:
            out["receipt"] = self.receipt.to_json()
        return out


@dataclass
class InboxRun:
    mailbox: str
    messages: int = 0  # in the mailbox
    already: int = 0  # handled by an earlier run
    results: list[MessageResult] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out = {"messages": self.messages, "already processed": self.already}
        for v in Verdict:
            if v is not Verdict.RECEIVED:
                out[v.value] = 0
        out[NOT_DELIVERED] = out[FAILED] = 0
        for r in self.results:
            if r.outcome == DELIVERED and r.receipt and r.receipt.again:
                out["already processed"] += 1
                continue
            key = r.receipt.verdict.value if r.outcome == DELIVERED and r.receipt else r.outcome
            out[key] = out.get(key, 0) + 1
        return out

    @property
    def failed(self) -> bool:
        return any(r.outcome == FAILED for r in self.results)

    def summary(self) -> str:
        c = self.counts()
        parts = [f"{n} {k}" for k, n in c.items() if k not in ("messages", "already processed") and n]
        return (f"{self.mailbox}: {c['messages']} messages, {c['already processed']} processed before; "
                f"this run: {', '.join(parts) or 'nothing new'}")

    def to_json(self) -> dict[str, Any]:
        return {"mailbox": self.mailbox, "counts": self.counts(), "results": [r.to_json() for r in self.results]}


def _open_mailbox(mbox: Path | None, maildir: Path | None) -> tuple[str, stdlib_mailbox.Mailbox]:
    if mbox is not None:
        if not mbox.is_file():
            raise MailError(f"no mbox file {mbox}; give the path of the mailbox file (or --maildir DIR)")
        with open(mbox, "rb") as f:  # an unreadable file raises OSError here: exit 1
            head = f.read(5)
        if head and head != b"From ":
            raise MailError(f"{mbox} is not an mbox file (it does not begin with a 'From ' line); "
                            "for a Maildir folder use --maildir")
        return f"mbox:{mbox}", stdlib_mailbox.mbox(str(mbox), create=False)
    assert maildir is not None
    if not (maildir / "cur").is_dir() or not (maildir / "new").is_dir():
        raise MailError(f"{maildir} is not a Maildir folder (it needs the subfolders cur and new); "
                        "for an mbox file use --mbox")
    return f"maildir:{maildir}", stdlib_mailbox.Maildir(str(maildir), factory=None, create=False)


def _maildir_files(root: Path, colon: str) -> dict[str, str]:
    """Key -> file path relative to the Maildir (``new/NAME`` or ``cur/NAME:2,FLAGS``)."""
    out = {}
    for sub in ("new", "cur"):
        for name in os.listdir(root / sub):
            if not name.startswith("."):
                out[name.split(colon)[0]] = f"{sub}/{name}"
    return out


def _delivery_order(key: str, rel: str, root: Path) -> tuple[float, int, str]:
    """Maildir names start with the delivery time (``SECONDS.M<microseconds>...``)."""
    m = re.match(r"(\d+)\.(?:M(\d+))?", key)
    if m:
        return float(m.group(1)), int(m.group(2) or 0), key
    try:
        return os.stat(root / rel).st_mtime, 0, key
    except OSError:
        return 0.0, 0, key


def _mark_seen(root: Path, rel: str, colon: str) -> None:
    """Move a Maildir message to ``cur`` with the seen flag (S), as a mail reader would."""
    name = rel.split("/", 1)[1]
    base, _, info = name.partition(colon)
    flags = info[2:] if info.startswith("2,") else ""
    if rel.startswith("cur/") and "S" in flags:
        return
    target = f"{base}{colon}2,{''.join(sorted(set(flags) | {'S'}))}"
    with contextlib.suppress(OSError):  # a mail reader moved it meanwhile: it is not lost
        os.rename(root / rel, root / "cur" / target)


def _headers(raw: bytes) -> tuple[str, str, str]:
    """From, Subject and Message-ID, for showing (none of them is trusted)."""
    try:
        h = BytesHeaderParser(policy=policy.default).parsebytes(raw)
        sender, subject, message_id = (_printable(str(h.get(n, "") or "")) for n in ("From", "Subject", "Message-ID"))
    except Exception:  # noqa: BLE001 - headers broken beyond reading: show nothing
        return "", "", ""
    return sender, subject, message_id


def _load_seen(path: Path) -> dict[str, str]:
    seen: dict[str, str] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                item = json.loads(line)
                seen[str(item["digest"])] = str(item["outcome"])
            except (ValueError, KeyError, TypeError):  # a line torn by a crash: that message is looked at again
                continue
    return seen


def _remember(path: Path, records: Sequence[dict[str, Any]]) -> None:
    if not records:
        return
    data = b"".join((json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8") for r in records)
    with open(path, "a+b") as f:
        if f.seek(0, os.SEEK_END):
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":  # a line torn by a crash: start a new one
                data = b"\n" + data
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def read_inbox(home: Home, *, mbox: Path | None = None, maildir: Path | None = None, retry: bool = False,
               on_result: Callable[[MessageResult], None] | None = None, jobs: int = 1) -> InboxRun:
    """Feed every message of the mailbox not handled before to the game it names.

    ``retry``: look again at messages that could not be delivered before (their game
    may exist now). ``jobs``: game files are independent, so up to that many worker
    processes take one game each. Raises :class:`MailError` (or ``OSError``) when the
    mailbox cannot be read; a message's own problems are results, never exceptions."""
    _check_home(home)
    name, box = _open_mailbox(mbox, maildir)
    with exclusive(home.path / ".pbem-inbox.lock", "inbox"):
        try:
            colon = getattr(box, "colon", ":")
            files: dict[str, str] = {}  # Maildir: key -> file
            if maildir is not None:
                root = maildir
                files = _maildir_files(root, colon)
                keys: list[Any] = sorted(files, key=lambda k: _delivery_order(k, files[k], root))
            else:
                keys = list(box.keys())

            def mark(key: Any) -> None:
                if maildir is not None and key in files:
                    _mark_seen(maildir, files[key], colon)

            return ingest(home, name, keys, box.get_bytes, mark=mark, retry=retry, on_result=on_result, jobs=jobs)
        finally:
            box.close()


def _check_home(home: Home) -> None:
    if not home.path.is_dir():
        raise MailError(f"no game folder {home.path}; create a game first (`pbem new`) or pass the right --home")


def ingest(home: Home, name: str, keys: Sequence[Any], fetch: Callable[[Any], bytes], *,
           mark: Callable[[Any], None] | None = None, retry: bool = False, already: int = 0,
           on_result: Callable[[MessageResult], None] | None = None, jobs: int = 1) -> InboxRun:
    """The one path from a mailbox to the games, for every kind of mailbox (the caller holds
    the inbox lock). ``keys`` in delivery order; ``fetch(key)`` gives a message's bytes exactly
    as stored (``KeyError``: it went away meanwhile); ``mark(key)`` marks a delivered message
    in the mailbox (called again for a delivered one seen by an earlier run, whose marking a
    crash may have stopped). ``already``: messages the caller skipped as marked before.

    Each game gets all its new messages at once (:func:`_deliver_all`: one open, one render pass,
    one fsync; ``jobs`` worker processes for independent games); the game file records every
    message's identity with its submission, which is what makes a message count once. The
    home's :data:`SEEN_FILE` remembers handled messages too, as a fast pre-filter, before they
    are marked in the mailbox."""
    run = InboxRun(name, messages=len(keys) + already, already=already)
    seen_path = home.path / SEEN_FILE
    seen = _load_seen(seen_path)
    games = set(home.games())
    todo: list[tuple[Any, bytes, MessageResult]] = []  # in mailbox order
    for key in keys:
        try:
            raw = fetch(key)
        except KeyError:  # removed from the mailbox while we read it
            continue
        digest = hashlib.sha256(raw).hexdigest()
        before = seen.get(digest)
        if before is not None and not (retry and before == NOT_DELIVERED):
            run.already += 1
            if before == DELIVERED and mark is not None:
                mark(key)
            continue
        todo.append((key, raw, _route(home, games, raw, digest)))
    by_game: dict[str, list[tuple[bytes, MessageResult]]] = {}
    for _key, raw, result in todo:
        if result.game is not None:
            by_game.setdefault(result.game, []).append((raw, result))
    _deliver_all(home, by_game, name, jobs)
    remember = []
    for _key, _raw, result in todo:
        run.results.append(result)
        if result.outcome != FAILED:
            remember.append({"digest": result.digest, "outcome": result.outcome, "game": result.game,
                             "submission": result.receipt.submission if result.receipt else None,
                             "message_id": result.message_id, "mailbox": name, "time": format_time(_utcnow())})
            seen[result.digest] = result.outcome
    # Only the pre-filter: the game files already know every delivered message.
    with contextlib.suppress(OSError):
        _remember(seen_path, remember)
    for key, _raw, result in todo:
        if result.outcome == DELIVERED and mark is not None:
            mark(key)
        if on_result is not None:
            on_result(result)
    return run


def _route(home: Home, games: set[str], raw: bytes, digest: str) -> MessageResult:
    """Read the message's headers and find its game: ``game`` is set when it can be delivered."""
    sender, subject, message_id = _headers(raw)
    result = MessageResult(digest, message_id, sender, subject, NOT_DELIVERED)
    try:
        gid = parse_submission(raw).envelope.game
    except EnvelopeError as exc:
        named = plain_reply_game(raw)  # a plain reply with a password: the subject names the game
        if named is None:
            result.reason = f"no submission in it: {exc}"
            return result
        gid = named
    if gid not in games:
        result.reason = f"it names game {gid!r}, which is not in {home.path}"
        return result
    result.game = gid
    return result


def _deliver_all(home: Home, by_game: dict[str, list[tuple[bytes, MessageResult]]], mailbox_name: str,
                 jobs: int) -> None:
    """Give each game all its new messages at once (one open, one render pass, one fsync per
    game); with ``jobs`` > 1, games go to that many worker processes (forked: no start-up)."""
    batches: dict[str, list[tuple[bytes, str, MessageKey | None]]] = {}
    for gid, items in by_game.items():
        batch: list[tuple[bytes, str, MessageKey | None]] = []
        for raw, result in items:
            source = f"{mailbox_name} {result.message_id}".strip()  # recorded with the submission: it came by email
            batch.append((raw, source, MessageKey(result.digest, _message_id(raw))))
        batches[gid] = batch
    outcome: dict[str, list[Receipt] | str] = {}
    parallel = jobs > 1 and len(batches) > 1 and hasattr(os, "fork") and home.clock is _utcnow
    if parallel:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=min(jobs, len(batches)),
                                 mp_context=multiprocessing.get_context("fork")) as pool:
            futures = {gid: pool.submit(_receive_game, home.path, gid, batch) for gid, batch in batches.items()}
            outcome = {gid: f.result() for gid, f in futures.items()}
    else:
        outcome = {gid: _receive_game(home.path, gid, batch, home) for gid, batch in batches.items()}
    for gid, items in by_game.items():
        got = outcome[gid]
        for i, (_raw, result) in enumerate(items):
            if isinstance(got, str):
                result.outcome, result.reason = FAILED, f"game {gid}: {got}"
            else:
                result.outcome, result.receipt = DELIVERED, got[i]


def _receive_game(path: Path, gid: str, batch: Sequence[tuple[bytes, str, MessageKey | None]],
                  home: Home | None = None) -> list[Receipt] | str:
    """One game's messages (in a worker process, or here): the receipts, or why it failed."""
    try:
        with (home or Home(path)).open(gid) as store:
            return store.receive_many(batch)
    except (PbemError, OSError) as exc:
        return str(exc)


def _message_id(raw: bytes) -> str:
    """The Message-ID header as written (stripped), '' when there is none or it cannot be read."""
    try:
        h = BytesHeaderParser(policy=policy.compat32).parsebytes(raw)
        return " ".join(str(h.get("Message-ID", "") or "").split())[:998]
    except Exception:  # noqa: BLE001 - headers broken beyond reading: no identity but the digest
        return ""


# ---- sending the outbox ---------------------------------------------------------------------


class Transport(Protocol):
    def deliver(self, message: EmailMessage, to: str, name: str) -> str:
        """Hand over one message for one address; return where it went. Raises
        :class:`Refused` for this message, :class:`MailError` when nothing more can be sent."""

    def close(self) -> None:
        """Let go of the connection, if any."""


class Refused(Exception):
    """The server refused this one message (the next one may still go)."""


class SmtpTransport:
    """Delivery through one SMTP connection, opened at the first message."""

    def __init__(self, host: str, port: int, sender: str, *, starttls: bool = False, user: str | None = None,
                 password: str | None = None, timeout: float = 60.0) -> None:
        self.host, self.port, self.sender = host, port, sender
        self.starttls, self.user, self.password, self.timeout = starttls, user, password, timeout
        self._smtp: smtplib.SMTP | None = None

    def _connection(self) -> smtplib.SMTP:
        if self._smtp is None:
            where = f"{self.host}:{self.port}"
            try:
                smtp = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
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


def outgoing_id(game: str, rows: Sequence[OutboxRecord], sender: str) -> str:
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


def answer_footer(game: str, step: int, side: str, mode: str) -> str:
    """The three lines that end a player's report mail: exactly how to answer it, for his mode
    (``password`` or ``key``)."""
    if mode == "password":
        return (f"To answer: reply to this mail and keep its subject ([{game}] step {step}).\n"
                "Write your orders, one per line, and one line: password: YOUR PASSWORD\n"
                "Quoted text and your signature are left out; a reply tells you what was accepted.\n")
    return (f"To answer: put your orders, one per line, in orders.txt and run\n"
            f"  pbem sign --game {game} --side {side} --step {step} --key YOUR.key --armor < orders.txt\n"
            "then paste the block it prints into a reply to this mail (or attach what --out writes).\n")


def build_message(game: str, rows: Sequence[OutboxRecord], sender: str, to: str, *, in_reply_to: str = "",
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
        msg.add_attachment(html.encode("utf-8"), maintype="text", subtype="html", filename=name)
    return msg


#: The map in a mail is a PNG this many pixels wide (the SVG's own proportions).
MAP_PNG_WIDTH = 1600
_SVG_RE = re.compile(r"<svg\b.*?</svg>", re.S)
_DESC_RE = re.compile(r'<desc id="map-desc">(.*?)</desc>', re.S)


def map_png(svg: str, width: int = MAP_PNG_WIDTH) -> bytes:
    """The map drawn as a PNG from its SVG, by resvg (a Rust renderer shipped as a wheel: no
    system library; it takes the machine's fonts)."""
    import resvg_py

    return bytes(resvg_py.svg_to_bytes(svg_string=svg, width=width))


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
                groups: dict[tuple[int, str, str, int | None], list[OutboxRecord]] = {}
                for row in st.outbox(kind=None, unsent=True):
                    if row.body:
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
                        footer = answer_footer(gid, step, recipient, modes[recipient]) \
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
                                 _address(addresses.get(row.recipient, "")), [row.id or 0], "", unit="round")
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


def _held(st: Any, groups: dict[tuple[int, str, str, int | None], list[OutboxRecord]]) -> set[tuple[int, str]]:
    """The (step, side) reports not to send now: steps that ask nothing of a player who folds them
    (:meth:`pbem.store.Store.folding`); each goes, marked sent, with his next report that asks."""
    folding = st.folding()
    steps = [step for (step, kind, who, _) in groups if kind == "report" and folding.get(who)]
    asks = st.asks(steps) if steps else {}
    return {(step, who) for (step, kind, who, _) in groups if kind == "report" and folding.get(who)
            and not asks[step][1] and who not in asks[step][0]}


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


def _threads(game: str, st: Any, groups: dict[tuple[int, str, str, int | None], list[OutboxRecord]],
             sender: str) -> dict[tuple[int, str, str, int | None], tuple[str, tuple[str, ...]]]:
    """Per group of rows to send, the message it answers and its references: a reply answers the
    player's own message (the one that carried the submission), a report the recipient's report
    of the step before; all of one game and recipient refer to the same thread head."""
    sids = [sid for (_, kind, _, sid) in groups if sid is not None]
    theirs = st.message_ids(sids)
    earlier: dict[str, list[tuple[int, list[OutboxRecord]]]] = {}  # recipient -> (step, rows) of its reports
    if any(kind == "report" for (_, kind, _, _) in groups):
        by_step: dict[tuple[str, int], list[OutboxRecord]] = {}
        for row in st.outbox(kind="report"):
            by_step.setdefault((row.recipient, row.step), []).append(row)
        for (who, step), rows in sorted(by_step.items()):
            earlier.setdefault(who, []).append((step, rows))
    folding = st.folding()
    out: dict[tuple[int, str, str, int | None], tuple[str, tuple[str, ...]]] = {}
    for key in groups:
        step, kind, recipient, sid = key
        root = thread_root(game, recipient, sender)
        parent = ""
        if sid is not None:
            parent = theirs.get(sid, "")
        elif kind == "report":
            for s, rows in reversed([(s, rows) for s, rows in earlier.get(recipient, []) if s < step]):
                if recipient in folding and folding[recipient]:  # a held report was never a mail of its own
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
