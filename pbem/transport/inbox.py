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
import logging
import mailbox as stdlib_mailbox
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from email import policy
from email.parser import BytesHeaderParser
from pathlib import Path
from typing import Any

from pbem.decide import Verdict, format_time
from pbem.envelope import parse_submission
from pbem.errors import EnvelopeError, PbemError
from pbem.join import looks_like_join, read_join
from pbem.plainreply import plain_reply_game
from pbem.store import Home, MessageKey, Receipt, _utcnow
from pbem.transport.common import MailError, Progress, _printable, exclusive
from pbem.workers import Forked, forking

#: In the home folder: one JSON line per mailbox message already looked at.
SEEN_FILE = "inbox-seen.jsonl"
_log = logging.getLogger("pbem")


DELIVERED, NOT_DELIVERED, FAILED = "delivered", "not delivered", "error"


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
    tournament: str | None = None  # a join by mail (pbem.join): the tournament it asks to join
    joined: bool | None = None  # a join taken: whether the player joined (False: refused, and told why)
    join_line: str = ""
    join: Any = field(default=None, repr=False)  # (request or error, the From address), until it is taken

    def line(self) -> str:
        if self.tournament is not None and self.joined is not None:
            return self.join_line
        if self.outcome == DELIVERED and self.receipt is not None and self.receipt.again:
            r = self.receipt
            return (f"{self.game}: received before as submission #{r.submission} ({r.verdict.value}); "
                    "nothing stored or answered again")
        if self.outcome == DELIVERED and self.receipt is not None and not self.receipt.submission:
            return f"{self.game}: {self.receipt.verdict.value}, not stored: {self.receipt.reason}"
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
        if self.tournament is not None:
            out.update(tournament=self.tournament, joined=self.joined, join=self.join_line)
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
            if r.outcome == DELIVERED and r.joined is not None:
                key = "joined" if r.joined else "join refused"
                out[key] = out.get(key, 0) + 1
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
               on_result: Callable[[MessageResult], None] | None = None, jobs: int = 1,
               progress: Progress | None = None) -> InboxRun:
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

            return ingest(home, name, keys, box.get_bytes, mark=mark, retry=retry, on_result=on_result, jobs=jobs,
                          progress=progress)
        finally:
            box.close()


def _check_home(home: Home) -> None:
    if not home.path.is_dir():
        raise MailError(f"no game folder {home.path}; create a game first (`pbem new`) or pass the right --home")


def ingest(home: Home, name: str, keys: Sequence[Any], fetch: Callable[[Any], bytes], *,
           mark: Callable[[Any], None] | None = None, retry: bool = False, already: int = 0,
           on_result: Callable[[MessageResult], None] | None = None, jobs: int = 1,
           progress: Progress | None = None) -> InboxRun:
    """The one path from a mailbox to the games, for every kind of mailbox (the caller holds
    the inbox lock). ``keys`` in delivery order; ``fetch(key)`` gives a message's bytes exactly
    as stored (``KeyError``: it went away meanwhile); ``mark(key)`` marks a delivered message
    in the mailbox (called again for a delivered one seen by an earlier run, whose marking a
    crash may have stopped). ``already``: messages the caller skipped as marked before.

    Each game gets all its new messages at once (:func:`_deliver_all`: one open, one render pass,
    one fsync; ``jobs`` worker processes for independent games); the game file records every
    message's identity with its submission, which is what makes a message count once. The
    home's :data:`SEEN_FILE` remembers handled messages too, as a fast pre-filter, before they
    are marked in the mailbox. ``progress`` hears of each message read and each game fed."""
    run = InboxRun(name, messages=len(keys) + already, already=already)
    seen_path = home.path / SEEN_FILE
    seen = _load_seen(seen_path)
    games = set(home.games())
    new: list[tuple[Any, bytes, str]] = []  # (key, bytes, digest) of each message not handled before, in mailbox order
    for i, key in enumerate(keys):
        if progress is not None:
            progress("reading mail", i, len(keys))
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
        new.append((key, raw, digest))
    if progress is not None and keys:
        progress("reading mail", len(keys), len(keys))
    todo = _route_and_deliver(home, games, new, name, jobs, progress)
    for _key, _raw, result in todo:
        if result.tournament is not None and result.join is not None:
            _take_join(home, result)
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


#: A mailbox of at most this many new messages is routed here, its first game fed here before the
#: workers are forked; and fewer messages left to route are never given to a forked router (the fork
#: and the warm-up cost more than they save)
ROUTER_MIN = 16


def _route_and_deliver(home: Home, games: set[str], new: Sequence[tuple[Any, bytes, str]], mailbox_name: str,
                       jobs: int, progress: Progress | None) -> list[tuple[Any, bytes, MessageResult]]:
    """Route each new message to its game and give each game its messages (:func:`_deliver_all`); each
    message with its result, in mailbox order.

    With worker processes and more than :data:`ROUTER_MIN` new messages, the first game's first
    message is fed here at once, and a report of that game is rendered and dropped
    (:meth:`pbem.store.Store.warm_up`), before the workers are forked: what a process loads once (the
    rules, the templates, the map's fixed layers) is then loaded once, not once per worker; a forked
    router reads the other messages meanwhile, on the other core, and they follow with the workers.
    A game's messages still go in mailbox order (its first one, then the others)."""
    if not (_parallel(home, jobs) and len(new) > ROUTER_MIN):  # one process, or a few messages: all routed here
        routed = [(key, raw, result) for (key, raw, _d), result in zip(new, _route_each(home, games, new), strict=True)]
        _deliver_all(home, _by_game(routed), mailbox_name, jobs, progress)
        return routed
    routed = []
    for i, (key, raw, digest) in enumerate(new):
        first = _route(home, games, raw, digest)
        routed.append((key, raw, first))
        if first.game is None:
            continue
        rest = new[i + 1:]
        router = Forked.start(_route_each, home, games, rest) if len(rest) >= ROUTER_MIN else None
        try:
            _deliver_all(home, {first.game: [(raw, first)]}, mailbox_name, 1)  # (the warm-up: see above)
            _warm_up(home, first.game)
        except BaseException:
            if router is not None:
                router.abandon()
            raise
        got = router.result() if router is not None else None
        if got is None or len(got) != len(rest):  # no router, or it failed: routed here
            got = _route_each(home, games, rest)
        routed += [(key, raw, result) for (key, raw, _d), result in zip(rest, got, strict=True)]
        _deliver_all(home, _by_game(routed[i + 1:]), mailbox_name, jobs, progress, warm=True)
        break
    return routed


def _by_game(routed: Sequence[tuple[Any, bytes, MessageResult]]) -> dict[str, list[tuple[bytes, MessageResult]]]:
    """Each game's messages (with their results), in mailbox order."""
    by_game: dict[str, list[tuple[bytes, MessageResult]]] = {}
    for _key, raw, result in routed:
        if result.game is not None:
            by_game.setdefault(result.game, []).append((raw, result))
    return by_game


def _warm_up(home: Home, gid: str) -> None:
    """Load here what every worker would otherwise load for itself: the rendering of a report (the
    first message need not have resolved a step). It only saves time: whatever fails here (a game
    that cannot be opened, a report that cannot be rendered) is told by the games' own deliveries."""
    try:
        with home.open(gid, recover=False) as store:
            store.warm_up()
    except Exception:  # noqa: BLE001 - see above: the workers then load it themselves
        _log.debug("game %s: no warm-up", gid, exc_info=True)


def _route_each(home: Home, games: set[str], items: Sequence[tuple[Any, bytes, str]]) -> list[MessageResult]:
    return [_route(home, games, raw, digest) for _key, raw, digest in items]


def _parallel(home: Home, jobs: int) -> bool:
    """Whether games go to worker processes: more than one job, where processes fork, on the real clock
    (a test's clock lives in this process)."""
    return jobs > 1 and hasattr(os, "fork") and home.clock is _utcnow


def _take_join(home: Home, result: MessageResult) -> None:
    """Give a join by mail to its tournament, which answers it (:meth:`Tournament.join_by_mail`)."""
    from pbem.tournament import Tournament

    request, sender = result.join
    try:
        with Tournament(home, result.tournament or "") as t:
            result.joined, result.join_line = t.join_by_mail(request, result.digest, sender)
        result.outcome = DELIVERED
    except (PbemError, OSError) as exc:
        result.outcome, result.reason = FAILED, f"tournament {result.tournament}: {exc}"
    result.join = None


def _route(home: Home, games: set[str], raw: bytes, digest: str) -> MessageResult:
    """Read the message's headers and find its game: ``game`` is set when it can be delivered; a join by
    mail (:mod:`pbem.join`) gets ``tournament`` instead."""
    sender, subject, message_id = _headers(raw)
    result = MessageResult(digest, message_id, sender, subject, NOT_DELIVERED)
    joining = read_join(raw) if looks_like_join(raw) else None
    if joining is not None:
        from pbem.tournament import tournament_names

        name, request, address = joining
        if name not in tournament_names(home):
            result.reason = f"it asks to join tournament {name!r}, which is not in {home.path}"
            return result
        result.tournament, result.join = name, (request, address)
        return result
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
                 jobs: int, progress: Progress | None = None, *, warm: bool = False) -> None:
    """Give each game all its new messages at once (one open, one render pass, one fsync per
    game); with ``jobs`` > 1, games go to that many worker processes (forked: no start-up), after
    the first game is fed here (unless this process is ``warm``: it fed a game already)."""
    batches: dict[str, list[tuple[bytes, str, MessageKey | None]]] = {}
    for gid, items in by_game.items():
        batch: list[tuple[bytes, str, MessageKey | None]] = []
        for raw, result in items:
            source = f"{mailbox_name} {result.message_id}".strip()  # recorded with the submission: it came by email
            batch.append((raw, source, MessageKey(result.digest, _message_id(raw))))
        batches[gid] = batch
    outcome: dict[str, list[Receipt] | str] = {}
    parallel = _parallel(home, jobs) and len(batches) > (0 if warm else 1)
    if parallel:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # The first game here, before the workers are forked: what a process builds once (the templates,
        # the map's fixed layers, the rules) is then built once, not once per worker.
        rest = list(batches)
        if not warm:
            first = rest.pop(0)
            outcome[first] = _receive_game(home.path, first, batches[first], home)
        with forking(), ProcessPoolExecutor(max_workers=min(jobs, len(rest)),
                                            mp_context=multiprocessing.get_context("fork")) as pool:
            futures = {gid: pool.submit(_receive_game, home.path, gid, batches[gid]) for gid in rest}
            for i, (gid, f) in enumerate(futures.items()):
                outcome[gid] = f.result()
                if progress is not None:
                    progress("feeding the games", len(batches) - len(rest) + i + 1, len(batches))
    else:
        for i, (gid, batch) in enumerate(batches.items()):
            if progress is not None:
                progress("feeding the games", i, len(batches))
            outcome[gid] = _receive_game(home.path, gid, batch, home)
        if progress is not None and batches:
            progress("feeding the games", len(batches), len(batches))
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
        # (not recovered on opening: receive_many finishes an earlier process's unfinished work itself,
        # in the same passes that decide and render these messages)
        with (home or Home(path)).open(gid, recover=False) as store:
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

