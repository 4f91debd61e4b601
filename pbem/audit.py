"""The audit: replay a game from its start and compare everything stored.

:func:`verify` (called by :meth:`pbem.store.Store.verify`, which reads the rows)
replays every stored submission from the starting position through the same
decision function as the live pipeline (:func:`pbem.decide.decide`), resolving the
steps that were resolved at their deadline at the same points, and checks:

* the game's set-up against its stored hash, and the event hash chain link by link;
* each snapshot against its own hash and against the replayed state;
* each event against the replayed one, and each verdict (with its reason) against
  the replayed verdict;
* each rendered report, byte for byte, against a fresh rendering.

It reports every problem it finds as a line of text (``step N: ...``) in a
:class:`VerifyReport`; the replay stops at the first difference in the game's
course, since everything after it would differ too. Nothing here writes.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem import moderator
from pbem.bodies import DamagedBodyError
from pbem.control import OFFER_DRAW, standing_offers
from pbem.core.events import Event
from pbem.core.game import Adjudication, GameSystem
from pbem.decide import (
    Cause,
    Verdict,
    canonical_json,
    decide,
    event_hash,
    events_json,
    header_hash,
    initial_adjudication,
    previous_report_steps,
    render_report,
    renderer_of,
    sha256_text,
    system_of,
)
from pbem.errors import PbemError
from pbem.records import kept_on_demand
from pbem.rows import (
    EventRow,
    GameRow,
    GameRows,
    OutboxRow,
    PlayerRow,
    SnapshotRow,
    SubmissionRow,
    damaged_bodies,
    read_game,
)
from pbem.workers import Forked, Runs, cores, fork_ready, forks_done

__all__ = ["VerifyReport", "first_difference", "verify", "verify_connection", "verify_file"]


@dataclass
class VerifyReport:
    game: str
    steps: int = 0
    submissions: int = 0
    events: int = 0
    reports: int = 0  # the stored report texts compared
    on_demand: int = 0  # the reports mailed to no one: kept without a text (records.ON_DEMAND), none to compare
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was not checked, and why (never a problem)

    @property
    def ok(self) -> bool:
        return not self.problems

    def checked(self) -> str:
        """``N reports checked``, and how many more were mailed to no one (nothing stored to compare)."""
        more = f" ({self.on_demand} more mailed to no one: made when asked for)" if self.on_demand else ""
        return f"{self.reports} reports checked{more}"


def first_difference(a: Any, b: Any, path: str = "") -> str:
    """Where two JSON values first differ, as ``path: stored X, replayed Y``."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b or a[k] != b[k]:
                if k not in a or k not in b:
                    return f"{path}{k}: {'missing' if k not in a else 'present'} in the stored copy"
                return first_difference(a[k], b[k], f"{path}{k}.")
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, f"{path}{i}.")
        if len(a) != len(b):
            return f"{path.rstrip('.')}: {len(a)} items stored, {len(b)} replayed"
    shown = (lambda v: json.dumps(v, ensure_ascii=False)[:120])
    return f"{path.rstrip('.') or 'value'}: stored {shown(a)}, replayed {shown(b)}"


def _json_or_none(text: str) -> Any:
    """A stored JSON value, or None when the stored text is damaged (it then differs from the replay)."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def sha256_hex(secret_hex: str) -> str:
    """The commitment a stored (hex) secret should have; "" when it is not hex."""
    try:
        return hashlib.sha256(bytes.fromhex(secret_hex)).hexdigest()
    except ValueError:
        return ""


# ---- verification ---------------------------------------------------------------------------


def _report_problem(system: GameSystem, row: OutboxRow, before: int | None, states: dict[int, str],
                    log: list[Event], snaps: dict[int, SnapshotRow], chains: dict[int, str]) -> str | None:
    """Render ``row``'s report again from the replayed state of its step; what differs, or None."""
    body = render_report(system, states[row.step], log, row, snaps[row.step].deadline, chains.get(row.upto_event, ""),
                         states.get(before) if before is not None else None)
    if body == row.body:
        return None
    assert row.body is not None
    a, b = row.body.splitlines(), body.splitlines()
    line = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"step {row.step}: the {row.format} report for {row.recipient} differs from a fresh rendering at line {line + 1}"


#: below this many reports to render, verify renders them in its own process (a worker costs more)
PARALLEL_MIN_REPORTS = 48


@dataclass
class _ReportJob:
    """The reports :meth:`_Verifier.check_reports` renders again, by step: in this process, or spread
    over forked worker processes (each renders whole steps, so a step's text and HTML reports share
    their view as they do here). Every report is rendered and compared either way."""

    system: GameSystem
    states: dict[int, str]
    log: list[Event]
    snaps: dict[int, SnapshotRow]
    chains: dict[int, str]
    work: list[tuple[int, OutboxRow, int | None]]
    grouped: list[list[tuple[int, OutboxRow, int | None]]] = field(default_factory=list)

    def indexes(self) -> set[int]:
        """The row indexes of the reports this job renders."""
        return {i for i, _, _ in self.work}

    def groups(self) -> list[list[tuple[int, OutboxRow, int | None]]]:
        out: list[list[tuple[int, OutboxRow, int | None]]] = []
        for item in self.work:
            if out and out[-1][-1][1].step == item[1].step:
                out[-1].append(item)
            else:
                out.append([item])
        return out

    def check(self, group: list[tuple[int, OutboxRow, int | None]]) -> dict[int, str]:
        out = {}
        for i, row, before in group:
            problem = _report_problem(self.system, row, before, self.states, self.log, self.snaps, self.chains)
            if problem is not None:
                out[i] = problem
        return out

    def start(self, jobs: int | None) -> Forked | None:
        """Hand the reports to a forked renderer process, which starts at once, and return; None when
        that does not pay (few reports, one core, no fork): :meth:`finish` then renders them here.
        ``jobs``: worker processes (None: one per core this process may use; 1: none).

        The renderer renders the first step (so its caches are warm: the compiled templates, the map's
        layers of the board), then forks ``jobs`` workers of its own for the other steps, handed out
        one at a time in contiguous runs (:class:`pbem.workers.Runs`): each worker renders neighbouring
        steps, whose map layouts and report rows its caches mostly hold already, and one that is done
        takes steps from the far end of the longest run left, so a worker that drew the long battles
        does not hold the rest up. This process warms up nothing first: it replays the game on the
        other core meanwhile."""
        groups = self.grouped = self.groups()
        if jobs is None:
            jobs = cores()
        jobs = min(jobs, len(groups) - 1)
        if jobs < 2 or len(self.work) < PARALLEL_MIN_REPORTS or not hasattr(os, "fork"):
            return None
        fork_ready()  # (until finish: the renderer's collections copy no page it shares with this process)
        try:
            return Forked.start(_render, self, jobs, group=True)
        except BaseException:
            forks_done()
            raise

    def finish(self, running: Forked | None) -> dict[int, str]:
        """Every report's problem by row index: the renderer's answers (see :meth:`start`), or, without
        it, every report rendered here."""
        if running is None:
            return {i: p for g in (self.grouped or self.groups()) for i, p in self.check(g).items()}
        try:  # (interrupted while waiting, Ctrl-C: the renderer and its workers stop too)
            got = running.result()
        finally:
            forks_done()
        answers: list[dict[int, str] | None] = [None] * len(self.grouped)
        if isinstance(got, list) and len(got) == len(answers):  # else a renderer that died: all rendered here
            answers = got
        found: dict[int, str] = {}
        for k, answer in enumerate(answers):
            # a step that failed in a worker is checked here, which meets (and raises) the same error
            found.update(answer if answer is not None else self.check(self.grouped[k]))
        return found

    @staticmethod
    def abandon(running: Forked | None) -> None:
        """Stop the renderer of :meth:`start` and its workers (this process failed before it read their
        answers)."""
        if running is not None:
            running.abandon()
            forks_done()

    def run(self, jobs: int | None) -> dict[int, str]:
        """Every report's problem by row index, rendered by ``jobs`` worker processes (see :meth:`start`)."""
        return self.finish(self.start(jobs))


def _render(job: _ReportJob, jobs: int) -> list[dict[int, str] | None]:
    """In the renderer process (:meth:`_ReportJob.start`): every step's problems, a list by step (a dict of
    row index -> problem, or None for a step whose rendering failed or whose worker died)."""
    answers: list[dict[int, str] | None] = [_checked(job, 0)]
    fork_ready()  # the first step's caches too: the workers' collections copy no page of them
    runs = Runs(1, len(job.grouped), jobs)
    waiting: list[Forked] = []
    done: dict[int, dict[int, str] | None] = {}
    try:
        waiting += [Forked.start(_render_runs, job, runs, w) for w in range(jobs)]
        while waiting:
            done.update(waiting.pop(0).result() or {})  # (a worker that died: its steps are rendered by the parent)
    except BaseException:
        for worker in waiting:
            worker.abandon()
        raise
    return answers + [done.get(k) for k in range(1, len(job.grouped))]


def _render_runs(job: _ReportJob, runs: Runs, worker: int) -> dict[int, dict[int, str] | None]:
    """In a forked worker: the problems of the steps it takes from ``runs``, by step."""
    out: dict[int, dict[int, str] | None] = {}
    while (k := runs.take(worker)) is not None:
        out[k] = _checked(job, k)
    return out


def _checked(job: _ReportJob, k: int) -> dict[int, str] | None:
    """The problems of the ``k``-th step's reports (None if rendering failed: see :meth:`_ReportJob.finish`)."""
    try:
        return job.check(job.grouped[k])
    except Exception:  # noqa: BLE001 - the parent renders this step again and reports the error as it always has
        return None


def verify(
    game: GameRow, players: dict[str, PlayerRow], subs: list[SubmissionRow], events: list[EventRow],
    snaps: dict[int, SnapshotRow], outbox: list[OutboxRow], *, jobs: int | None = None,
) -> VerifyReport:
    """Check one game's stored rows, as :meth:`pbem.store.Store.verify` reads them:
    ``subs`` in id order, ``events`` in seq order, ``snaps`` by step, and the ``outbox``
    reports (not the reminders) in id order. The report lists every problem found.

    ``jobs``: how many worker processes render the reports again (None: one per core; 1: this
    process only). The result is the same either way."""
    return _Verifier(jobs).run(game, players, subs, events, snaps, outbox)


def verify_connection(conn: sqlite3.Connection, *, jobs: int | None = None) -> VerifyReport:
    """Read one game file's rows on ``conn`` (:func:`pbem.rows.read_game`) and check them. A report
    body that cannot be read, or rows too damaged to replay, are problems of the report."""
    try:
        rows = read_game(conn)
    except DamagedBodyError:
        gid = next(iter(conn.execute("SELECT id FROM game")), ("?",))[0]
        counts = [next(iter(conn.execute(f"SELECT COUNT(*) FROM {t}")))[0] for t in ("snapshot", "submission", "event")]
        return VerifyReport(gid, steps=counts[0], submissions=counts[1], events=counts[2],
                            problems=damaged_bodies(conn))
    return verify_rows(rows, jobs=jobs)


def verify_rows(rows: GameRows, *, jobs: int | None = None) -> VerifyReport:
    """:func:`verify` of rows read with :func:`pbem.rows.read_game`, saying so when they are too
    damaged to replay."""
    try:
        return verify(rows.game, rows.players, rows.subs, rows.events, rows.snaps, rows.reports, jobs=jobs)
    except (ValueError, KeyError, TypeError, AttributeError, PbemError) as exc:  # rows too damaged to replay
        return VerifyReport(rows.game.id, steps=len(rows.snaps), submissions=len(rows.subs), events=len(rows.events),
                            reports=sum(1 for r in rows.reports if not kept_on_demand(r)),
                            problems=[f"the game file is damaged: the replay stopped at {type(exc).__name__}: "
                                      f"{str(exc)[:200]}"])


def verify_file(path: Path, game_id: str, *, jobs: int | None = None) -> VerifyReport | None:
    """``pbem verify`` of the game file ``path`` straight through ``sqlite3``, without the store and its
    ORM, when the file needs nothing of the store first: it holds ``game_id`` in this format, with no
    submission left undecided and no report left unrendered. None when it does (or cannot be read
    here): then the store opens it, finishes its work and verifies it, saying what is wrong."""
    from pbem.queries import BUSY_TIMEOUT_SECONDS, needs_the_store
    from pbem.records import GAME_ID_RE

    if not GAME_ID_RE.fullmatch(game_id) or not path.is_file():
        return None
    try:
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        conn.execute("BEGIN")
        if needs_the_store(conn, game_id):
            return None
        return verify_connection(conn, jobs=jobs)
    except sqlite3.Error:
        return None
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        conn.close()


class _Verifier:
    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = jobs
        self.problems: list[str] = []
        self.notes: list[str] = []

    def fail(self, step: int | None, text: str) -> None:
        self.problems.append(f"step {step}: {text}" if step is not None else text)

    def run(
        self, game: GameRow, players: dict[str, PlayerRow], subs: list[SubmissionRow],
        events: list[EventRow], snaps: dict[int, SnapshotRow], outbox: list[OutboxRow],
    ) -> VerifyReport:
        kept = sum(1 for r in outbox if kept_on_demand(r))
        report = VerifyReport(game.id, steps=len(snaps), submissions=len(subs), events=len(events),
                              reports=len(outbox) - kept, on_demand=kept)
        if header_hash(game) != game.header_hash:
            self.fail(None, "the game's set-up (seed, options, scenario) does not match its stored hash")
        if game.commitment and game.secret is not None and sha256_hex(game.secret) != game.commitment:
            self.fail(None, f"the stored secret does not match the commitment {game.commitment} published in the "
                      "first reports: the secret was changed, so the draws are not the committed ones")
            report.problems = self.problems
            return report
        system = system_of(game)
        chains = {0: game.header_hash, **{r.seq: r.hash for r in events}}
        # the workers start first: the hashes are checked here while they render
        early = self.start_reports(system, outbox, events, snaps, chains)
        try:
            self.check_chain(game, events)
            for s in snaps.values():
                if sha256_text(s.session) != s.hash:
                    self.fail(s.step, "the snapshot's hash does not match its content")
            replayed = self.replay(game, players, subs, events, snaps)
        except BaseException:
            _ReportJob.abandon(early[1] if early is not None else None)
            raise
        rendered = (early[0].indexes(), early[0].finish(early[1])) if early is not None else None
        self.check_reports(system, outbox, replayed, snaps, chains, self.jobs, rendered)
        report.problems = self.problems
        report.notes = self.notes
        return report

    def check_chain(self, game: GameRow, events: list[EventRow]) -> None:
        prev = game.header_hash
        for i, r in enumerate(events, start=1):
            if r.seq != i:
                self.fail(r.step, f"event #{i} is missing (found #{r.seq})")
                return
            if r.prev_hash != prev:
                self.fail(r.step, f"event #{r.seq} does not link to the event before it (the chain is broken)")
            try:
                ev = {"kind": r.kind, "audience": r.audience, "text": r.text, "data": json.loads(r.data)}
            except ValueError:
                self.fail(r.step, f"event #{r.seq} has damaged data")
                prev = r.hash
                continue
            if event_hash(r.seq, r.step, ev, r.prev_hash) != r.hash:
                self.fail(r.step, f"event #{r.seq} ({r.kind}) does not match its hash: its content was altered")
            prev = r.hash

    def replay(
        self, game: GameRow, players: dict[str, PlayerRow], subs: list[SubmissionRow],
        events: list[EventRow], snaps: dict[int, SnapshotRow],
    ) -> tuple[dict[int, str], list[Event]]:
        adj, opening_events = initial_adjudication(game)
        first = min(snaps) if snaps else 1
        states: dict[int, str] = {}
        log: list[Event] = []
        stored_log = [{"kind": r.kind, "audience": r.audience, "text": r.text, "data": _json_or_none(r.data)}
                      for r in events]  # damaged data (None) is reported by check_chain and differs below
        if first not in snaps:
            self.fail(first, "the starting snapshot is missing")
            return states, log
        if not self.same_state(first, adj, snaps[first]):
            return states, log
        opening = events_json(opening_events)  # events of the game's creation
        for k, (a, b) in enumerate(zip(stored_log, opening)):
            if a != b:
                self.fail(first, f"event #{k + 1} differs from the replay: {first_difference(a, b)}")
                return states, log
        if snaps[first].last_event != len(opening):
            self.fail(first, f"the game's creation gives {len(opening)} events; the store has {snaps[first].last_event}")
            return states, log
        log.extend(Event.from_json(e) for e in opening)
        states[first] = snaps[first].session
        digests: dict[str, int] = {}
        accepted: list[tuple[str, str, int]] = []  # the accepted draw offers: (side, orders, step)
        players, replaced = moderator.credentials_over_time(players, subs)  # pbem replace: who held each side when
        deadlines = sorted((s for s in snaps.values() if s.cause == Cause.DEADLINE.value), key=lambda s: s.step)

        def resolution(step: int, evs: list[Event], cause: Cause, sid: int | None) -> bool:
            now = adj.step().number
            snap = snaps.get(now)
            if snap is None:
                self.fail(step, f"the replay resolves step {step} but no snapshot of step {now} is stored")
                return False
            if snap.cause != cause.value or snap.submission_id != sid:
                self.fail(step, f"the replay resolves step {step} by {cause.value}"
                          f"{f' #{sid}' if sid else ''}; the store says by {snap.cause}"
                          f"{f' #{snap.submission_id}' if snap.submission_id else ''}")
                return False
            new = events_json(evs)
            start = len(log)
            stored = stored_log[start: start + len(new)]
            for k, (a, b) in enumerate(zip(stored, new)):
                if a != b:
                    self.fail(step, f"event #{start + k + 1} differs from the replay: {first_difference(a, b)}")
                    return False
            if len(stored) != len(new) or snap.last_event != start + len(new):
                self.fail(step, f"the replay gives {len(new)} events for this step; the store has "
                          f"{snap.last_event - start}")
                return False
            log.extend(evs)
            if not self.same_state(now, adj, snap):
                return False
            states[now] = snap.session
            return True

        for row in subs:
            while (deadlines and deadlines[0].after_submission < (row.id or 0)
                   and deadlines[0].step == adj.step().number + 1):
                step = adj.step().number
                if not resolution(step, adj.resolve(deadline=True), Cause.DEADLINE, None):
                    return states, log
                deadlines.pop(0)
            if row.verdict == Verdict.RECEIVED.value:
                continue
            step = adj.step().number
            offers = standing_offers(accepted, step)
            out = decide(adj, game.id, players, row.raw, digests, row.password_check, offers)
            if row.id in replaced and out.verdict is Verdict.ACCEPTED:  # a substitute takes the side over
                players = {**players, replaced[row.id].side: replaced[row.id]}
            if out.adjudication is not None:
                adj = out.adjudication
            where = f"submission #{row.id} ({row.side or 'unknown side'}, for step {row.step})"
            stored_ok = row.verdict in (Verdict.ACCEPTED.value, Verdict.SUPERSEDED.value)
            replay_ok = out.verdict is Verdict.ACCEPTED
            if stored_ok != replay_ok or (not stored_ok and row.verdict != out.verdict.value):
                why = f": {out.reason}" if out.reason else ""
                if out.errors:
                    why += " (" + "; ".join(f"line {e['line']}: {e['message']}" for e in out.errors) + ")"
                self.fail(row.step if row.step is not None else step,
                          f"{where} is stored as {row.verdict} but the replay makes it {out.verdict.value}{why}")
                return states, log
            stored_errors = _json_or_none(row.errors) if row.errors else []
            if not replay_ok and (row.reason != out.reason or stored_errors != out.errors):
                self.fail(row.step if row.step is not None else step,
                          f"{where} is stored as {row.verdict} ({row.reason}) but the replay gives another reason: "
                          f"{out.reason}")
                return states, log
            if out.digest != row.digest:
                self.fail(step, f"{where}: its digest differs from the stored one (the bytes were altered)")
                return states, log
            if replay_ok:
                digests[out.digest or ""] = row.id or 0
                if out.orders == OFFER_DRAW:
                    accepted.append((out.side or "", out.orders, step))
                if row.orders != out.orders or row.applied_step != step:
                    self.fail(step, f"{where}: the stored orders or step differ from the replay")
                    return states, log
                if out.resolved_step is not None and not resolution(step, out.events, Cause.SUBMISSION, row.id):
                    return states, log
                if out.resolved_step is None and out.events:  # a moderator's extension: chained when made
                    new = events_json(out.events)
                    start = len(log)
                    stored = stored_log[start: start + len(new)]
                    if stored != new:
                        k = next((i for i, (a, b) in enumerate(zip(stored, new)) if a != b), len(stored))
                        self.fail(step, f"{where}: event #{start + k + 1} differs from the replay"
                                  + (f": {first_difference(stored[k], new[k])}" if k < len(stored) else ""))
                        return states, log
                    log.extend(out.events)
        while deadlines and deadlines[0].step == adj.step().number + 1:
            step = adj.step().number
            if not resolution(step, adj.resolve(deadline=True), Cause.DEADLINE, None):
                return states, log
            deadlines.pop(0)
        extra = sorted(s for s in snaps if s > adj.step().number)
        if extra:
            self.fail(extra[0], "a snapshot is stored that the replay never reaches")
        if len(log) != len(stored_log):
            self.fail(adj.step().number, f"{len(stored_log) - len(log)} stored events that the replay never produces")
        return states, log

    def same_state(self, step: int, adj: Adjudication, snap: SnapshotRow) -> bool:
        text = canonical_json(adj.to_json())
        if text == snap.session:
            return True
        try:
            where = first_difference(json.loads(snap.session), json.loads(text))
        except ValueError:
            where = "the stored snapshot is not JSON"
        self.fail(step, f"the snapshot differs from the replay at {where}")
        return False

    def start_reports(self, system: GameSystem, outbox: list[OutboxRow], events: list[EventRow],
                      snaps: dict[int, SnapshotRow], chains: dict[int, str]) -> tuple[_ReportJob, Forked] | None:
        """With worker processes, the reports are rendered from the stored states and events while this
        process replays the game. The replay then decides which of them count: those of the steps it
        reproduced, whose stored states and events it has then shown to be the replayed ones, so each
        such report is compared with a rendering of the replayed game, as in one process. None (the
        reports wait for the replay): no workers, or stored events that cannot be read."""
        try:
            log = [Event.from_json({"kind": r.kind, "audience": r.audience, "text": r.text, "data": json.loads(r.data)})
                   for r in events]
        except (ValueError, KeyError, TypeError):
            return None
        states = {s.step: s.session for s in snaps.values()}
        job = _ReportJob(system, states, log, snaps, chains, self.report_work(system, outbox, states, log)[0])
        running = job.start(self.jobs)
        return (job, running) if running is not None else None

    @staticmethod
    def report_work(system: GameSystem, outbox: list[OutboxRow], states: dict[int, str], log: list[Event],
                    ) -> tuple[list[tuple[int, OutboxRow, int | None]], dict[int, str], int]:
        """The reports of the steps in ``states`` (and of the events in ``log``) to render again (row index,
        row, the step of the recipient's previous report), the problems found without rendering (a
        report never rendered), and how many were rendered by an earlier version of pbem."""
        older = 0
        found: dict[int, str] = {}  # row index -> its problem
        work: list[tuple[int, OutboxRow, int | None]] = []
        for i, (row, before) in enumerate(zip(outbox, previous_report_steps(outbox))):
            if row.step not in states or row.upto_event > len(log):
                continue  # already reported: the replay stopped before this step
            current = renderer_of(system, getattr(row, "language", "en") or "en")
            if row.body is not None and getattr(row, "renderer", current) != current:
                older += 1  # rendered by another version of pbem: its text cannot be made again here
                continue
            if kept_on_demand(row):
                continue  # mailed to no one so far: rendered when asked for, no stored text to compare
            if row.body is None:
                found[i] = f"step {row.step}: the {row.format} report for {row.recipient} was never rendered"
                continue
            work.append((i, row, before))
        return work, found, older

    def check_reports(self, system: GameSystem, outbox: list[OutboxRow], replayed: tuple[dict[int, str], list[Event]],
                      snaps: dict[int, SnapshotRow], chains: dict[int, str], jobs: int | None = None,
                      rendered: tuple[set[int], dict[int, str]] | None = None) -> None:
        """Compare every report of the replayed steps with a fresh rendering. ``rendered``: the reports
        already rendered from the stored rows (:meth:`start_reports`): their row indexes and problems."""
        states, log = replayed
        work, found, older = self.report_work(system, outbox, states, log)
        if rendered is None:
            found.update(_ReportJob(system, states, log, snaps, chains, work).run(jobs))
        else:
            done, problems = rendered
            wanted = {i for i, _, _ in work}
            found.update({i: p for i, p in problems.items() if i in wanted})
            rest = [w for w in work if w[0] not in done]  # none when the replay reproduced the stored game
            if rest:
                found.update(_ReportJob(system, states, log, snaps, chains, rest).run(1))
        self.problems.extend(found[i] for i in sorted(found))
        if older:
            self.notes.append(f"{older} report{'s were' if older > 1 else ' was'} rendered by an earlier version of "
                              "pbem and kept as sent: their text is not compared (the game they report is: every "
                              "state, event and verdict is replayed)")
