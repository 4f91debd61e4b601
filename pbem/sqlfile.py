"""What the game files (:class:`pbem.store.Store`) and the tournament files
(:class:`pbem.tournament.Tournament`) share: one SQLite file where pbem issues ``BEGIN`` itself
(``BEGIN IMMEDIATE`` for a transaction that will write, so two writers queue at its start instead of
failing at their first write) and every transaction commits whole or not at all.

A file is used through SQLModel (``_write()`` and ``_read()`` give a session), and a game file also
through plain SQL on its own ``sqlite3`` connection (``_plain_write()`` and ``_plain_read()`` give a
:class:`PlainSession`): the path a submission takes from a mailbox to its reports runs on that alone,
so ``pbem inbox``, ``pbem submit`` and ``pbem tick`` load no SQLAlchemy, SQLModel or pydantic (most of
a second of start-up) unless a command needs the ORM. SQLAlchemy is imported here only when a
session or an engine is made."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlmodel import Session as DbSession

__all__ = ["PlainSession", "SqlFile", "explicit_begin", "own_connection"]


def explicit_begin(engine: Any, owner: SqlFile) -> None:
    """Let ``owner`` issue the transactions on ``engine``: the driver's own BEGIN is off, and each
    transaction begins with ``BEGIN IMMEDIATE`` when ``owner`` opened it to write."""
    from sqlalchemy import event

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if owner._immediate else "BEGIN")


class PlainSession:
    """A transaction on a file's own ``sqlite3`` connection (:meth:`SqlFile._plain_write`): what the
    store's plain paths take where they may also be given a SQLModel session (whose changes they then
    flush before their plain queries). Every statement has run already: there is nothing to flush."""

    __slots__ = ("conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def flush(self) -> None:
        """Nothing to do (a SQLModel session writes its pending changes here)."""


def own_connection(db: DbSession | PlainSession) -> sqlite3.Connection:
    """The transaction's own ``sqlite3`` connection: a plain session's, or a SQLModel session's, inside
    its transaction (SQLAlchemy's ``exec_driver_sql`` costs some 35 us a statement more). Flush a
    SQLModel session first where its changes must count; an error it raises is told as every other
    one (:meth:`SqlFile._tx`)."""
    if isinstance(db, PlainSession):
        return db.conn
    raw = db.connection().connection.driver_connection
    assert isinstance(raw, sqlite3.Connection)
    return raw


class SqlFile:
    """A file opened on ``self.engine`` (made with :func:`explicit_begin`); ``_write()`` and ``_read()``
    give a session whose transaction commits when the block ends and rolls back when it raises. A
    file with a plain connection (``self._conn``, made with ``isolation_level=None``) also has
    ``_plain_write()`` and ``_plain_read()``, the same on it."""

    engine: Any
    _conn: sqlite3.Connection | None = None
    _immediate = False

    def _db_error(self, exc: BaseException) -> Exception:
        """The error to raise for a failing file (damaged, read-only, busy, a full disk): says what to
        do. ``exc``: the ``sqlite3`` error (the driver's, under SQLAlchemy's), or SQLAlchemy's when it
        has none."""
        raise NotImplementedError

    @contextmanager
    def _tx(self, immediate: bool) -> Iterator[DbSession]:
        from sqlalchemy.exc import DBAPIError
        from sqlmodel import Session

        self._immediate = immediate
        try:
            with Session(self.engine, expire_on_commit=False) as db:
                try:
                    yield db
                    db.commit()
                except BaseException:
                    db.rollback()
                    raise
        except DBAPIError as exc:
            raise self._db_error(exc.orig if exc.orig is not None else exc) from exc
        except sqlite3.Error as exc:  # plain SQL run on the session's own connection: told the same way
            raise self._db_error(exc) from exc
        finally:
            self._immediate = False

    def _write(self) -> Any:
        return self._tx(True)

    def _read(self) -> Any:
        return self._tx(False)

    @contextmanager
    def _plain_tx(self, immediate: bool) -> Iterator[PlainSession]:
        conn = self._conn
        assert conn is not None, "a file opened without a plain connection"
        try:
            conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
            try:
                yield PlainSession(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):  # (what failed is told, not the rollback)
                        conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise self._db_error(exc) from exc

    def _plain_write(self) -> Any:
        return self._plain_tx(True)

    def _plain_read(self) -> Any:
        return self._plain_tx(False)
