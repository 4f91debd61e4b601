"""Control lines: what a side may send in any game, whatever step is open (``resign``).

The core reads them before the rest of a submission goes to the game (:func:`pbem.decide.decide`),
so every game system gets them alike; a game only provides
:meth:`pbem.core.game.Adjudication.conclude`, which ends it with a winner (or a draw) and how.
A line is a control line when, with case and runs of spaces ignored, it is exactly one of
:data:`CONTROL_LINES`. Pure: no I/O, so the audit's replay of ``decide`` reproduces it.

``resign``: the side gives the game up; the other side wins at once. It stands alone in its
submission (orders beside it would be meaningless), and it is accepted whatever step is open,
also one that does not wait for that side; the envelope still names the open step, as every
submission does, so an old signed ``resign`` cannot be replayed into a later step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from pbem.core.events import ALL, Event
from pbem.core.game import Adjudication
from pbem.core.orders import OrderProblem, SubmissionRejected

RESIGN = "resign"
CONTROL_LINES = (RESIGN,)


def _norm(line: str) -> str:
    return " ".join(line.split()).lower()


@dataclass(frozen=True)
class Control:
    """The control line of a submission: its word, and the line number it stood on."""

    word: str
    lineno: int


def find_control(lines: Sequence[str]) -> Control | None:
    """The submission's control line, or None when it has none (its lines are all the game's).
    Raises :class:`SubmissionRejected` when a control line does not stand alone."""
    found = [(n, _norm(line)) for n, line in enumerate(lines, start=1) if _norm(line) in CONTROL_LINES]
    if not found:
        return None
    n, word = found[0]
    others = [(k, line) for k, line in enumerate(lines, start=1) if line.strip() and k != n]
    if others:
        raise SubmissionRejected([OrderProblem(k, line.strip(), f"`{word}` stands alone: send `{word}` on its own "
                                                                  "(the game ends at once), or your orders without it")
                                  for k, line in others])
    return Control(word, n)


def apply_control(adj: Adjudication, sides: Sequence[str], side: str, control: Control) -> list[Event]:
    """Carry out ``control`` for ``side`` on ``adj`` (changed in place); its events.
    Raises :class:`SubmissionRejected` when it cannot be done now (the game is over)."""
    if adj.step().over:
        raise SubmissionRejected([OrderProblem(control.lineno, control.word, "the game is over; nothing to resign")])
    if control.word == RESIGN:
        others = [s for s in sides if s != side]
        winner = others[0] if len(others) == 1 else None
        return [Event("resign", ALL, f"{side} resigns", {"side": side}),
                *adj.conclude(winner, f"{side} resigned")]
    raise ValueError(f"unknown control line {control.word!r}")  # pragma: no cover - CONTROL_LINES lists them all
