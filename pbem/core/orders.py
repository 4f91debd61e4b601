"""What every game's orders share: the lines of a submission, one problem per line, the rejection.

A game parses and checks its own order language; it reports what is wrong as
:class:`OrderProblem` values (line number, the line, what is wrong and what would be
legal) and rejects a whole submission with :class:`SubmissionRejected`, which lists
every problem at once. :func:`order_lines` is the one place that says which lines of a
mail or file carry orders, and :func:`split_lines` how a text is cut into lines (the mail
readers of :mod:`pbem.transport` cut it the same way).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pbem.errors import PbemError

__all__ = ["OrderProblem", "SubmissionRejected", "order_lines", "split_lines"]


@dataclass(frozen=True)
class OrderProblem:
    """One problem of a submission: ``lineno`` 0 means the submission as a whole."""

    lineno: int
    text: str
    message: str

    def __str__(self) -> str:
        if self.lineno:
            return f"line {self.lineno}: {self.text!r}: {self.message}"
        return self.message

    def to_json(self) -> dict[str, object]:
        return {"line": self.lineno, "text": self.text, "message": self.message}


class SubmissionRejected(PbemError, ValueError):
    """A submission that is not accepted; ``errors`` lists every problem."""

    def __init__(self, errors: Sequence[OrderProblem]) -> None:
        self.errors = list(errors)
        n = len(self.errors)
        super().__init__(
            f"{n} error{'' if n == 1 else 's'}; nothing was applied:\n" + "\n".join(f"- {e}" for e in self.errors)
        )


def split_lines(text: str) -> list[str]:
    """``text``'s lines, cut at ``\\r\\n``, ``\\r`` and ``\\n`` only. Not ``str.splitlines``: it also cuts at
    ``\\v``, ``\\f``, ``\\x1c``-``\\x1e``, ``\\x85`` and U+2028/9, which must stay inside a line (and are then
    rejected by validation)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def order_lines(text: str) -> list[tuple[int, str]]:
    """The lines that carry orders: no blanks, no ``#`` comments, no ``>`` quotes, nothing after ``-- ``."""
    out = []
    for i, raw in enumerate(split_lines(text), start=1):
        if raw.rstrip() == "--" or raw == "-- ":
            break
        line = raw.strip()
        if not line or line.startswith(">") or line.startswith("#"):
            continue
        line = line.split("#", 1)[0].strip()
        if line:
            out.append((i, line))
    return out
