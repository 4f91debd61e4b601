"""A sealed submission, decided and stored through the standard library alone.

Most of what players hand to ``pbem submit`` is sealed: orders for a step that also waits for the
other side, or a revision of one's own. Deciding one reads the open step's state and writes one row:
no event, no snapshot, no report. Through the store (:mod:`pbem.store`) the command would first
load SQLModel, SQLAlchemy and pydantic, most of its second of start-up. Here the same submission
is decided by the same pure function (:func:`pbem.decide.decide`) against the same state, read by
the same queries (:mod:`pbem.queries`) over ``sqlite3``, and its row is written with its verdict in
one ``BEGIN IMMEDIATE`` transaction, then synced, before the receipt is given. The rows are those
the store would write (``tests/test_sealed.py`` compares the two paths).

Only the plain case is taken. For anything else :func:`receive_sealed` gives None having written
nothing, and the caller goes the whole way (:meth:`pbem.store.Home.receive`), which takes every case:

* not a signed submission (a plain reply, something unreadable), a password (checked with scrypt,
  throttled, stored without it), a mailbox's message (its reply is queued);
* a game file that needs the store first: another format, a submission not yet decided, a report not
  yet rendered, or a computer player who may have to answer;
* an outcome that is more than a row: the step resolves, an absence, an offer of a draw or another
  control line, an engine failure, or any error on the way (the store then says what is wrong).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from datetime import datetime
from pathlib import Path

from pbem import queries
from pbem.control import OFFER_DRAW
from pbem.core.events import MODERATOR
from pbem.core.languages import requested_language
from pbem.core.mailing import requested_folding
from pbem.core.orders import order_lines
from pbem.decide import Outcome, canonical_json, decide, format_time, game_secret, system_of
from pbem.envelope import parse_submission
from pbem.errors import EnvelopeError
from pbem.records import GAME_FILE_SUFFIX, GAME_ID_RE, Receipt, Verdict, computer_settings
from pbem.replies import MAIL_SOURCES
from pbem.rows import GameRow, PlayerRow, read_rows

__all__ = ["receive_sealed"]


def _checkpoint(name: str) -> None:
    """A named point of this path; tests replace this to kill the process there."""


def receive_sealed(home: Path, raw: bytes, source: str, game: str | None, now: datetime) -> Receipt | None:
    """Decide and store ``raw`` (from ``source``, for ``game`` or the game its envelope names) when it is
    a plain sealed submission, and give its receipt; None, with nothing written, for anything else."""
    if source.startswith(MAIL_SOURCES):
        return None
    try:
        sub = parse_submission(raw)
    except EnvelopeError:
        return None
    if sub.password is not None:
        return None
    gid = game or sub.envelope.game
    path = home / f"{gid}{GAME_FILE_SUFFIX}"
    if not GAME_ID_RE.fullmatch(gid) or not path.is_file() or computer_settings(home, gid).exists():
        return None
    try:
        conn = sqlite3.connect(path, timeout=queries.BUSY_TIMEOUT_SECONDS, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        decided = _decide_and_store(conn, gid, raw, source, format_time(now))
    except Exception:  # noqa: BLE001 - whatever it was, the store goes the whole way and says what is wrong
        logging.getLogger("pbem").debug("game %s: the sealed path left the submission to the store", gid, exc_info=True)
        decided = None
    finally:
        conn.close()
    if decided is None:
        return None
    _sync(path)
    return decided


def _decide_and_store(conn: sqlite3.Connection, gid: str, raw: bytes, source: str, now: str) -> Receipt | None:
    queries.prepare_connection(conn)
    run = conn.execute
    run("BEGIN IMMEDIATE")
    try:
        receipt = None if queries.needs_the_store(conn, gid) else _decided(run, conn, raw, source, now)
        if receipt is None:
            run("ROLLBACK")
            return None
        _checkpoint("sealed-before-commit")
        run("COMMIT")
    except BaseException:
        if conn.in_transaction:
            run("ROLLBACK")
        raise
    return receipt


def _decided(run: queries.Run, conn: sqlite3.Connection, raw: bytes, source: str, now: str) -> Receipt | None:
    """Under the write lock, in a file that needs nothing of the store first: decide ``raw`` and write
    its row, or None (nothing written) when it is not the plain case."""
    game = read_rows(conn, GameRow, "game")[0]
    found = list(run("SELECT step, session FROM snapshot ORDER BY step DESC LIMIT 1", ()))
    if not found:
        return None
    open_step, session = found[0]
    adj = system_of(game).load(json.loads(session))
    adj.attach_secret(game_secret(game))
    adj = queries.replay_accepted(run, adj, open_step)
    players = {p.side: p for p in read_rows(conn, PlayerRow, "player")}
    out = decide(adj, game.id, players, raw, queries.accepted_digests(run), None, queries.the_offers(run, open_step))
    if not _plain(out):
        return None
    accepted = out.verdict is Verdict.ACCEPTED
    cursor = run(
        "INSERT INTO submission (raw, password_check, received, source, side, step, digest, verdict, reason, errors, "
        "applied_step, orders, related, processed) VALUES (?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (raw, now, source, out.side, out.step, out.digest, out.verdict.value, str(out.reason),
         canonical_json(out.errors) if out.errors else None, open_step if accepted else None,
         out.orders if accepted else None, out.related, now))
    sid = getattr(cursor, "lastrowid", None)
    if not isinstance(sid, int):
        return None
    related, stands = out.related, None
    waiting: tuple[str, ...] = ()
    if accepted:
        assert out.side is not None and out.adjudication is not None
        lines = order_lines(out.orders or "")
        wanted = requested_language(lines)
        if wanted is not None:  # his reports and replies from now on
            queries.set_language(run, out.side, wanted)
        fold = requested_folding(lines)
        if fold is not None:  # which steps he gets mail for
            queries.set_folding(run, out.side, fold)
        replaced = queries.supersede_earlier(run, sid, out.side, open_step)
        if replaced is not None:
            related = replaced
            run("UPDATE submission SET related = ? WHERE id = ?", (related, sid))
        waiting = out.adjudication.step().missing
    elif out.verdict is Verdict.REJECTED and out.errors and out.side and out.step == open_step:
        # orders checked and refused (so the sender is the player): his earlier orders still count
        stands = queries.orders_that_stand(run, out.side, open_step, sid)
    return Receipt(game=game.id, submission=sid, verdict=out.verdict, side=out.side, step=out.step,
                   reason=str(out.reason), errors=tuple(out.errors), related=related, waiting_for=waiting,
                   stands=stands)


def _plain(out: Outcome) -> bool:
    """An outcome that is one row and nothing more."""
    if out.detail:
        return False
    if out.verdict is Verdict.ACCEPTED:
        return (out.resolved_step is None and not out.control and out.side not in (None, MODERATOR)
                and out.orders != OFFER_DRAW and not queries.is_away(out.orders))
    return out.verdict in (Verdict.REJECTED, Verdict.DUPLICATE)


def _sync(path: Path) -> None:
    """Make the commit durable before the receipt is given (as :meth:`pbem.store.Store.sync`)."""
    try:
        queries.sync_wal(path)
    except OSError as exc:
        from pbem.store import _os_error  # a failing disk: said as the store says it

        raise _os_error(path, exc) from exc
