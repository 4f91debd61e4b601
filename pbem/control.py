"""Control lines: what a side may send in any game, whatever step is open (``resign``, ``offer draw``,
``accept draw``, ``away until DATE``).

The core reads them before the rest of a submission goes to the game (:func:`pbem.decide.decide`),
so every game system gets them alike; a game only provides
:meth:`pbem.core.game.Adjudication.conclude`, which ends it with a winner (or a draw) and how.
A line is a control line when, with case and runs of spaces ignored, it is exactly one of
:data:`CONTROL_LINES`. Pure: no I/O, so the audit's replay of ``decide`` reproduces it.

``away until DATE`` (``2025-03-10`` or ``2025-03-10 18:00``, UTC): the side will be away; the store moves
the game's deadlines to the end of the absence, within the cap the home sets (``pbem config
--away-cap``), and both sides are told. It stands alone too, and changes nothing in the game.

``resign``: the side gives the game up; the other side wins at once. It stands alone in its
submission (orders beside it would be meaningless), and it is accepted whatever step is open,
also one that does not wait for that side; the envelope still names the open step, as every
submission does, so an old signed ``resign`` cannot be replayed into a later step.

``offer draw`` / ``accept draw``: a side offers a draw; the offer stands while the step it was made in
and the step after it are open (:data:`OFFER_STEPS`), so it lapses when the game moves on past the
next step (a side renews it by sending it again). While it stands the other side may send ``accept
draw`` (or ``offer draw``: two offers make an agreement), and the game ends at once as a draw "by
agreement". ``accept draw`` with no standing offer is refused. Which offers stand is computed from
the accepted submissions (:func:`standing_offers`), by the store live and by the audit's replay alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from pbem.core.events import ALL, Event
from pbem.core.game import Adjudication
from pbem.core.orders import OrderProblem, SubmissionRejected
from pbem.core.phrase import N_, Phrase

RESIGN = "resign"
AWAY = "away"
OFFER_DRAW = "offer draw"
ACCEPT_DRAW = "accept draw"
CONTROL_LINES = (RESIGN, OFFER_DRAW, ACCEPT_DRAW)
#: An offer of a draw stands while the step it was made in, or up to this many steps after it, is open.
OFFER_STEPS = 1
DRAW_HOW = "drawn by agreement"
_AWAY_RE = re.compile(r"away until (\d{4}-\d{2}-\d{2})(?:[t ](\d{2}:\d{2})(?::\d{2})?z?)?")


def _norm(line: str) -> str:
    return " ".join(line.split()).lower()


@dataclass(frozen=True)
class Control:
    """The control line of a submission: its word, and the line number it stood on."""

    word: str
    lineno: int
    until: str = ""  # away: the end of the absence, ``2025-03-10T00:00:00Z``


def find_control(lines: Sequence[str]) -> Control | None:
    """The submission's control line, or None when it has none (its lines are all the game's).
    Raises :class:`SubmissionRejected` when a control line does not stand alone."""
    found = [(n, _norm(line)) for n, line in enumerate(lines, start=1)
             if _norm(line) in CONTROL_LINES or _norm(line).startswith("away until")]
    if not found:
        return None
    n, word = found[0]
    until = ""
    if word.startswith("away until"):
        until = _away_until(n, lines[n - 1].strip(), word)
        word = AWAY
    others = [(k, line) for k, line in enumerate(lines, start=1) if line.strip() and k != n]
    if others:
        word = "away until DATE" if word.startswith("away until") else word
        raise SubmissionRejected([OrderProblem(k, line.strip(), Phrase(N_(
            "`%(word)s` stands alone: send `%(word)s` on its own (it is not an order of the game), and your orders in a "
            "submission of their own"), word=word))
                                  for k, line in others])
    return Control(word, n, until)


def _away_until(n: int, line: str, norm: str) -> str:
    m = _AWAY_RE.fullmatch(norm)
    bad = SubmissionRejected([OrderProblem(n, line, Phrase(N_("write it like: away until 2025-03-10 (or away until "
                                                              "2025-03-10 18:00, UTC)")))])
    if m is None:
        raise bad
    try:
        moment = datetime.fromisoformat(f"{m.group(1)}T{m.group(2) or '00:00'}:00").replace(tzinfo=UTC)
    except ValueError:
        raise bad from None
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def standing_offers(accepted: Iterable[tuple[str, str, int]], open_step: int) -> dict[str, int]:
    """The draw offers that stand while step ``open_step`` is open: side -> the step the side's latest
    offer was made in. ``accepted`` lists the accepted submissions as (side, stored orders, the step
    open when it was accepted), in the order they were received."""
    out: dict[str, int] = {}
    for side, orders, step in accepted:
        if orders == OFFER_DRAW and step + OFFER_STEPS >= open_step:
            out[side] = step
    return out


def offer_text(side: str, other: str, step: int) -> str:
    """The event's text (and the opponent's notice) for ``side``'s offer made while ``step`` was open."""
    return (f"{side} offers a draw: {other} may accept it by sending `accept draw` alone in a submission "
            f"until step {step + OFFER_STEPS} is over (after that the offer lapses)")


def apply_control(adj: Adjudication, sides: Sequence[str], side: str, control: Control,
                  offers: Mapping[str, int] | None = None) -> list[Event]:
    """Carry out ``control`` for ``side`` on ``adj`` (changed in place); its events. ``offers``: the draw
    offers standing now (:func:`standing_offers`). Raises :class:`SubmissionRejected` when it cannot be
    done now (the game is over; ``accept draw`` with no offer of the other side standing)."""
    if adj.step().over:
        raise SubmissionRejected([OrderProblem(control.lineno, control.word, Phrase(N_("the game is over; `%(word)s` changes nothing now"), word=control.word))])
    others = [s for s in sides if s != side]
    theirs = sorted(o for o in others if o in (offers or {}))
    if control.word in (OFFER_DRAW, ACCEPT_DRAW):
        if theirs:  # an offer of the other side stands: agreed (an offer answering an offer agrees too)
            return [Event("draw-agreed", ALL, f"{side} accepts the draw {theirs[0]} offered",
                          {"side": side, "offered_by": theirs[0]}),
                    *adj.conclude(None, DRAW_HOW)]
        if control.word == ACCEPT_DRAW:
            who = Phrase(" or ".join(others)) if len(others) == 1 else Phrase(N_("the other side"))
            raise SubmissionRejected([OrderProblem(
                control.lineno, control.word,
                Phrase(N_("no draw offer of %(who)s stands, so there is nothing to accept (an offer lapses when the "
                          "game moves on past the step after the one it was made in); send `%(offer)s` to offer a "
                          "draw yourself"), who=who, offer=OFFER_DRAW))])
        step = adj.step().number
        return [Event("draw-offer", ALL, offer_text(side, " or ".join(others) or "the other side", step),
                      {"side": side, "step": step, "until_step": step + OFFER_STEPS})]
    if control.word == AWAY:
        return [Event("away", ALL, f"{side} is away until {control.until}: the deadlines wait for him, within "
                      "the club's limit", {"side": side, "until": control.until})]
    if control.word == RESIGN:
        winner = others[0] if len(others) == 1 else None
        return [Event("resign", ALL, f"{side} resigns", {"side": side}),
                *adj.conclude(winner, f"{side} resigned")]
    raise ValueError(f"unknown control line {control.word!r}")  # pragma: no cover - CONTROL_LINES lists them all
