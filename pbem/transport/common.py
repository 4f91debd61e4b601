"""What the inbox and the outbox share: mail errors, the email policy, the folder lock."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from email import policy
from pathlib import Path

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

