"""What the game files (:class:`pbem.store.Store`) and the tournament files
(:class:`pbem.tournament.Tournament`) share: one SQLite file used through SQLModel, where pbem issues
``BEGIN`` itself (``BEGIN IMMEDIATE`` for a transaction that will write, so two writers queue at
its start instead of failing at their first write) and every transaction commits whole or not at all."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session as DbSession

__all__ = ["SqlFile", "explicit_begin", "own_connection"]


def explicit_begin(engine: Any, owner: SqlFile) -> None:
    """Let ``owner`` issue the transactions on ``engine``: the driver's own BEGIN is off, and each
    transaction begins with ``BEGIN IMMEDIATE`` when ``owner`` opened it to write."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if owner._immediate else "BEGIN")


def own_connection(db: DbSession) -> sqlite3.Connection:
    """The session's own ``sqlite3`` connection, inside its transaction: the hot paths' plain SQL runs
    on it directly (SQLAlchemy's ``exec_driver_sql`` costs some 35 us a statement more). Flush the
    session first where its changes must count; an error it raises is told as every other one
    (:meth:`SqlFile._tx`)."""
    raw = db.connection().connection.driver_connection
    assert isinstance(raw, sqlite3.Connection)
    return raw


class SqlFile:
    """A file opened on ``self.engine`` (made with :func:`explicit_begin`); ``_write()`` and ``_read()``
    give a session whose transaction commits when the block ends and rolls back when it raises."""

    engine: Any
    _immediate = False

    def _db_error(self, exc: DBAPIError) -> Exception:
        """The error to raise for a failing file (damaged, read-only, busy, a full disk): says what to do."""
        raise NotImplementedError

    @contextmanager
    def _tx(self, immediate: bool) -> Iterator[DbSession]:
        self._immediate = immediate
        try:
            with DbSession(self.engine, expire_on_commit=False) as db:
                try:
                    yield db
                    db.commit()
                except BaseException:
                    db.rollback()
                    raise
        except DBAPIError as exc:
            raise self._db_error(exc) from exc
        except sqlite3.Error as exc:  # plain SQL run on the session's own connection: told the same way
            raise self._db_error(DBAPIError(None, None, exc)) from exc
        finally:
            self._immediate = False

    def _write(self) -> Any:
        return self._tx(True)

    def _read(self) -> Any:
        return self._tx(False)
