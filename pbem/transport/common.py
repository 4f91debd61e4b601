"""What the inbox and the outbox share: mail errors, the email policy, the folder lock."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from email import policy
from pathlib import Path
from typing import IO, Any

from pbem.errors import PbemError

# Reports go out as 7-bit text (quoted-printable or base64 where needed): any server takes them.
_MAIL_POLICY = policy.default.clone(cte_type="7bit")


#: How a long pass tells where it is: ``progress(stage, done, total)`` ("reading mail", 3, 40). The
#: command line draws a bar from it when on a terminal (pbem.cli.base.progress_bar); None: nothing.
Progress = Callable[[str, int, int], None]


class MailError(PbemError):
    """A mailbox that cannot be read, a mail server that cannot be used."""


def _printable(text: str, limit: int = 200) -> str:
    """Header text from strangers, safe to print on a terminal (no control characters)."""
    clean = "".join(c if c.isprintable() else "?" for c in " ".join(text.split()))
    return clean if len(clean) <= limit else clean[: limit - 3] + "..."


try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    HAS_LOCKS = False
else:
    HAS_LOCKS = True

#: The descriptors of the lock files this process holds (see :func:`lock`).
_HELD: set[int] = set()


def _release_in_child() -> None:
    """In a forked child (a worker of ``--jobs``): let go of the parent's locks.

    A ``flock`` belongs to the open file, which a fork shares: a worker still finishing its game
    for a moment after its parent was killed would otherwise keep the next run out. The child's
    copy of each descriptor is pointed at ``/dev/null`` (its number stays valid, the lock file is
    no longer open in the child)."""
    if not _HELD:
        return
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        for fd in _HELD:
            os.dup2(null, fd)
    finally:
        os.close(null)
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_release_in_child)


def lock(f: IO[Any]) -> None:
    """Take an exclusive advisory lock on the open file ``f`` (POSIX ``flock``: released by :func:`unlock`,
    or by the kernel when the process ends, however it ends; never held by its forked children).
    Raises :class:`BlockingIOError` when another process holds it."""
    fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    _HELD.add(f.fileno())


def unlock(f: IO[Any]) -> None:
    _HELD.discard(f.fileno())
    fcntl.flock(f.fileno(), fcntl.LOCK_UN)


@contextlib.contextmanager
def exclusive(lock_file: Path, what: str) -> Iterator[None]:
    """One ``pbem inbox`` (or ``pbem send``, ``pbem tick``) at a time per home folder (see :func:`lock`)."""
    if not HAS_LOCKS:  # pragma: no cover - Windows: no lock
        yield
        return
    with open(lock_file, "a+b") as f:
        try:
            lock(f)
        except BlockingIOError:
            raise MailError(f"another `pbem {what}` is running on {lock_file.parent}; wait for it to finish") from None
        try:
            yield
        finally:
            unlock(f)
