"""The step pipeline's plain-SQL reads and writes of a game file, said once for both ways in.

:class:`pbem.store.Store` runs them through SQLAlchemy's connection (``exec_driver_sql``) inside its
transactions; :mod:`pbem.sealed` (a sealed ``pbem submit``) runs them through the standard library's
``sqlite3``. Both take positional ``?`` parameters and give rows as sequences, so each function
here takes ``run(sql, params)`` and means the same rows on both paths.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from pbem import moderator
from pbem.control import OFFER_DRAW, OFFER_STEPS, standing_offers
from pbem.core.game import Adjudication
from pbem.records import RENDERING_OWED, SCHEMA, Verdict

__all__ = [
    "BUSY_TIMEOUT_SECONDS",
    "sync_wal",
    "Run",
    "prepare_connection",
    "accepted_digests",
    "is_away",
    "orders_that_stand",
    "needs_the_store",
    "Sealed",
    "accepted_orders",
    "replay",
    "replay_accepted",
    "set_folding",
    "set_language",
    "supersede_earlier",
    "the_offers",
]

BUSY_TIMEOUT_SECONDS = 60.0  # a writer waits this long for another to finish before it gives up

Run = Callable[[str, tuple[Any, ...]], Iterable[Sequence[Any]]]
"""Runs one SQL statement with ``?`` parameters and gives its rows."""


def prepare_connection(conn: sqlite3.Connection) -> None:
    """Set up a new connection to a game file, as every one is: wait for a busy file, WAL (a commit
    appends to the log without an fsync; :meth:`pbem.store.Store.sync` makes it durable; a read-only
    file or folder: reading still works, and writing says why not), and zero replaced bytes (a
    removed password)."""
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
    with contextlib.suppress(sqlite3.Error):
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA secure_delete = ON")


def sync_wal(path: Path) -> None:
    """Make every commit to the game file ``path`` so far durable: one fsync of its write-ahead log (a
    commit itself does not sync, ``synchronous=NORMAL``: a killed process loses none, only a power cut
    could). Raises the OSError of a failing disk."""
    try:
        fd = os.open(f"{path}-wal", os.O_RDONLY)
    except FileNotFoundError:  # checkpointed and removed by the last connection to close: synced then
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def needs_the_store(conn: sqlite3.Connection, game_id: str) -> bool:
    """Whether the game file on ``conn`` must go through the store (:mod:`pbem.store`) before it is read
    or written plain (:mod:`pbem.sealed`, :func:`pbem.audit.verify_file`): it does not hold ``game_id``
    in this format (the store migrates an older one, refuses another and names a misnamed file), or it
    has work left (a submission not decided, a report not rendered: the store finishes it first, in
    order). Ask it inside the transaction that then reads or writes."""
    for table in ("player", "outbox"):  # a file made before players had a language gets the columns
        if "language" not in {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}:
            return True
    if "schema_version" not in {r[1] for r in conn.execute("PRAGMA table_info(game)")}:
        return True
    if conn.execute("SELECT id, schema_version FROM game").fetchall() != [(game_id, SCHEMA)]:
        return True
    return bool(conn.execute("SELECT 1 FROM submission WHERE verdict = ? LIMIT 1", (Verdict.RECEIVED.value,)).fetchone()
                or conn.execute(f"SELECT 1 FROM outbox WHERE {RENDERING_OWED} LIMIT 1").fetchone())


def is_away(orders: str | None) -> bool:
    """An accepted ``away until DATE`` (pbem.control): stored as ``away until 2025-03-10T00:00:00Z``."""
    return bool(orders) and (orders or "").startswith("away until ")


def _not_the_games(check: str | None, orders: str | None) -> bool:
    """An accepted submission that is not orders for the game: a moderator's action, an absence or a
    standing offer of a draw. It never enters the state, and a revision never supersedes it."""
    return check == moderator.CHECK or is_away(orders) or orders == OFFER_DRAW


#: Orders accepted for the open step, as they are replayed: (side, orders, digest), in the order they came.
Sealed = tuple[tuple[str, str, str], ...]


def accepted_orders(run: Run, step: int) -> Sealed:
    """The orders accepted for ``step`` since it opened (sealed; superseded ones and whatever is not
    orders for the game left out), in the order they came."""
    return tuple((side or "", orders or "", digest or "") for check, orders, side, digest in run(
        "SELECT password_check, orders, side, digest FROM submission WHERE verdict = ? AND applied_step = ? "
        "ORDER BY id", (Verdict.ACCEPTED.value, step)) if not _not_the_games(check, orders))


def replay(adj: Adjudication, sealed: Sealed) -> Adjudication:
    """``adj`` (the state a step opened with) with ``sealed`` (:func:`accepted_orders`) submitted again."""
    for side, orders, digest in sealed:
        adj.submit(side, orders, digest)
    return adj


def replay_accepted(run: Run, adj: Adjudication, step: int) -> Adjudication:
    """``adj`` (the state ``step`` opened with) with the orders accepted for it since, sealed, in the
    order they came: the state a new submission for ``step`` is decided against."""
    return replay(adj, accepted_orders(run, step))


def accepted_digests(run: Run) -> dict[str, int]:
    """The digest of every submission ever accepted (a later resend of one is a duplicate) -> its id."""
    rows = run("SELECT digest, id FROM submission WHERE verdict IN (?, ?)",  # two columns, not every submission's bytes
               (Verdict.ACCEPTED.value, Verdict.SUPERSEDED.value))
    return {digest: sid for digest, sid in rows if digest and sid is not None}


def the_offers(run: Run, open_step: int) -> dict[str, int]:
    """The draw offers standing while ``open_step`` is open (pbem.control.standing_offers)."""
    rows = run("SELECT side, orders, applied_step FROM submission WHERE verdict = ? AND orders = ? AND applied_step >= ? "
               "ORDER BY id", (Verdict.ACCEPTED.value, OFFER_DRAW, open_step - OFFER_STEPS))
    return standing_offers(((side or "", orders or "", step or 0) for side, orders, step in rows), open_step)


def supersede_earlier(run: Run, sid: int, side: str, step: int) -> int | None:
    """Submission ``sid``, just accepted for ``side`` and ``step``, is a revision: the side's earlier orders
    for the step are superseded by it (an absence or an offer of a draw still stands). The last of them
    (the one it replaces), or None."""
    earlier = [(i, check, orders) for i, check, orders in run(
        "SELECT id, password_check, orders FROM submission WHERE verdict = ? AND applied_step = ? AND side = ? "
        "AND id != ? ORDER BY id", (Verdict.ACCEPTED.value, step, side, sid))]
    replaced = None
    for i, check, orders in earlier:
        if _not_the_games(check, orders):
            continue
        run("UPDATE submission SET verdict = ?, related = ?, reason = ? WHERE id = ?",
            (Verdict.SUPERSEDED.value, sid, f"replaced by submission #{sid}", i))
        replaced = i
    return replaced


def orders_that_stand(run: Run, side: str, step: int, before: int) -> int | None:
    """The side's orders accepted for ``step`` before submission ``before`` (a rejected revision leaves
    them standing, and its receipt says so), or None."""
    rows = list(run("SELECT id FROM submission WHERE verdict = ? AND side = ? AND applied_step = ? AND id < ? "
                    "ORDER BY id LIMIT 1", (Verdict.ACCEPTED.value, side, step, before)))
    return rows[0][0] if rows else None


def set_language(run: Run, side: str, language: str) -> None:
    """The language of ``side``'s reports and replies from now on (the order line ``language xx``)."""
    run("UPDATE player SET language = ? WHERE side = ?", (language, side))


def set_folding(run: Run, side: str, fold: bool) -> None:
    """Whether ``side`` gets mail only for the steps that ask something of him (the order line ``mailing``)."""
    run("CREATE TABLE IF NOT EXISTS mail_pref (side VARCHAR PRIMARY KEY, fold INTEGER NOT NULL)", ())
    run("INSERT INTO mail_pref (side, fold) VALUES (?, ?) ON CONFLICT(side) DO UPDATE SET fold = excluded.fold",
        (side, int(fold)))
