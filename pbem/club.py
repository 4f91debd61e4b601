"""``pbem run``: one pass of everything a club needs, in order, under a lock.

1. fetch the mail and feed it to the games (any mailbox ``pbem inbox`` reads);
2. apply deadlines (defaults for late sides, reminders: ``pbem tick``);
3. advance the tournaments (record results; when a round is complete, queue the standings
   and pair the next round: :meth:`pbem.tournament.Tournament.advance`);
4. send everything queued (reports, reminders, replies, tournament mail: ``pbem send``).

A lock file in the home (``.pbem-run.lock``) keeps two runs from overlapping: the second says
so and does nothing. Each pass gives one summary line, and says what needs the moderator:
a message that could not be stored, a mailbox or mail server that cannot be used, a damaged
game file, a tournament that cannot advance, a message the server refused.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pbem.decide import format_time, parse_time
from pbem.errors import PbemError
from pbem.store import Home, spread_absence
from pbem.tournament import advance_all
from pbem.transport.common import HAS_LOCKS, Progress, lock, unlock
from pbem.transport.inbox import InboxRun
from pbem.transport.outbox import SendResult, Transport, send_outbox, send_tournament_mail

__all__ = ["LOCK_FILE", "ClubRun", "RunBusy", "run_once"]

LOCK_FILE = ".pbem-run.lock"


class RunBusy(PbemError):
    """Another ``pbem run`` holds the home's lock."""


@dataclass
class ClubRun:
    """What one pass did, and what needs the moderator."""

    started: str
    inbox: InboxRun | None = None
    ticked: dict[str, list[str]] = field(default_factory=dict)
    tournaments: list[str] = field(default_factory=list)
    sent: list[SendResult] = field(default_factory=list)
    attention: list[str] = field(default_factory=list)  # needs the moderator

    @property
    def needs_moderator(self) -> bool:
        return bool(self.attention)

    def summary(self) -> str:
        parts = []
        if self.inbox is not None:
            c = self.inbox.counts()
            new = {k: n for k, n in c.items() if k not in ("messages", "already processed") and n}
            parts.append("mail: " + (", ".join(f"{n} {k}" for k, n in new.items()) or "nothing new"))
        resolved = sum(1 for lines in self.ticked.values() for x in lines if "resolved at its deadline" in x)
        reminders = sum(1 for lines in self.ticked.values() for x in lines if x.startswith("reminder queued"))
        parts.append(f"deadlines: {resolved} step(s) resolved, {reminders} reminder(s)")
        paired = sum(1 for x in self.tournaments if x.endswith(" paired"))
        recorded = sum(1 for x in self.tournaments if " wins (" in x or " a draw (" in x)
        parts.append(f"tournaments: {recorded} result(s), {paired} round(s) paired")
        sent = sum(1 for r in self.sent if r.status in ("sent", "written"))
        parts.append(f"sent: {sent} message(s)")
        tail = f"; NEEDS THE MODERATOR: {len(self.attention)} problem(s)" if self.attention else ""
        return f"run {self.started}: " + "; ".join(parts) + tail

    def to_json(self) -> dict[str, Any]:
        return {"started": self.started, "inbox": self.inbox.to_json() if self.inbox else None,
                "ticked": self.ticked, "tournaments": self.tournaments, "sent": [r.to_json() for r in self.sent],
                "attention": self.attention, "summary": self.summary()}


@contextlib.contextmanager
def run_lock(home: Home) -> Iterator[None]:
    """The home's run lock (POSIX advisory lock; its file says who holds it)."""
    if not HAS_LOCKS:  # pragma: no cover - Windows: no lock
        yield
        return
    home.path.mkdir(parents=True, exist_ok=True)
    path = home.path / LOCK_FILE
    with open(path, "a+") as f:
        try:
            lock(f)
        except BlockingIOError:
            f.seek(0)
            holder = f.read().strip() or "another process"
            raise RunBusy(f"another `pbem run` is running on {home.path} ({holder}); this run does nothing") from None
        try:
            f.seek(0)
            f.truncate()
            f.write(f"pid {os.getpid()} since {format_time(home.clock())}\n")
            f.flush()
            yield
        finally:
            f.seek(0)
            f.truncate()
            unlock(f)


def run_once(home: Home, *, fetch: Callable[[Home], InboxRun] | None, transport: Transport | None, sender: str,
             now: datetime | None = None, mark_sent: bool = True,
             echo: Callable[[str], None] = lambda line: None, progress: Progress | None = None) -> ClubRun:
    """One pass: fetch and ingest, tick, advance tournaments, send; under the home's run lock
    (raises :class:`RunBusy` when another pass holds it). A step that fails is noted in
    ``attention`` and the later steps still run (mail that came in is still answered).
    ``progress`` hears of each game ticked and sent to (the mail's own progress is ``fetch``'s)."""
    def tell(stage: str, done: int, total: int) -> None:
        if progress is not None:
            progress(stage, done, total)

    when = now or home.clock()
    run = ClubRun(format_time(when))
    with run_lock(home):
        if fetch is not None:
            try:
                run.inbox = fetch(home)
                for r in run.inbox.results:
                    if r.outcome == "error":
                        run.attention.append(f"mail: {r.line()}")
            except (PbemError, OSError) as exc:
                run.attention.append(f"mail: {exc}")
        games = home.games()
        absences: list[tuple[str, int, str, str]] = []
        for i, gid in enumerate(games):
            tell("deadlines", i, len(games))
            try:
                with home.open(gid) as st:
                    run.ticked[gid] = st.tick(when)
                    for line in run.ticked[gid]:
                        echo(f"{gid}: {line}")
                    absences += [(gid, *a) for a in st.absences() if parse_time(a[2]) > when]
            except PbemError as exc:
                run.attention.append(f"game {gid}: {exc}")
        tell("deadlines", len(games), len(games))
        for gid, sid, side, until in absences:  # carried when it came; again here, should a crash have cut it short
            for line in spread_absence(home, gid, sid, side, until):
                echo(line)
        done, failed = advance_all(home)
        run.tournaments = done
        for line in done:
            echo(line)
        run.attention += [f"tournament {name}: {msg}" for name, msg in failed.items()]
        if transport is not None:
            failure = ""
            try:
                games = home.games()
                for i, gid in enumerate(games):  # game by game: one damaged file does not keep the others' mail back
                    tell("sending", i, len(games))
                    try:
                        results, failure = send_outbox(home, transport, sender, game=gid, mark=mark_sent)
                    except PbemError as exc:
                        if not any(a.startswith(f"game {gid}:") for a in run.attention):
                            run.attention.append(f"game {gid}: {exc}")
                        continue
                    run.sent += results
                    if failure:
                        break
                tell("sending", len(games), len(games))
                if not failure:
                    results, failure = send_tournament_mail(home, transport, sender, mark=mark_sent)
                    run.sent += results
            finally:
                transport.close()
            if failure:
                run.attention.append(f"send: {failure}")
            run.attention += [f"send: {r.line()}" for r in run.sent if r.status == "refused"]
    return run
