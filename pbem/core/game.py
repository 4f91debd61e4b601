"""The interface a game system provides to pbem's core.

A game system (Julius Caesar in :mod:`pbem.games.caesar`, the sealed-bid toy of the
tests) is found by the name stored in each game file (:func:`pbem.games.find_game`).
It gives the core everything the core may know of a game:

* :class:`GameSystem`: its name, sides and options; how to start a game and load a
  stored one; how to build a side's report (its fog filter) and describe the state;
* :class:`Adjudication`: one game's whole adjudication state (position, open step,
  sealed orders). It is pure and JSON-serialisable; the core tries every submission
  on a :meth:`~Adjudication.copy` and keeps the copy only when it is accepted.

Sides are plain strings (``"Caesar"``); the moderator is :data:`pbem.core.events.MODERATOR`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from pbem.core.events import Event
from pbem.core.orders import OrderProblem
from pbem.core.rng import RandomStream

__all__ = [
    "Adjudication",
    "ComputerPlayers",
    "GameSystem",
    "OptionSpec",
    "ReportContext",
    "StepInfo",
    "Summary",
    "option_values",
]


@dataclass(frozen=True)
class StepInfo:
    """Where a game stands: the open step, whom it waits for, whose sealed orders are in."""

    number: int
    kind: str  # the game's own name for the step kind ("command", "bid", ...); "over" when finished
    title: str
    awaiting: tuple[str, ...] = ()
    received: tuple[str, ...] = ()  # of ``awaiting``, the sides whose (sealed) orders are in
    sealed: bool = False  # orders stay hidden from the other side until the step resolves
    over: bool = False

    def awaits(self, side: str) -> bool:
        return side in self.awaiting

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(s for s in self.awaiting if s not in self.received)


@dataclass(frozen=True)
class Summary:
    """A game in a line: where it stands, the score, and how it ended."""

    headline: str  # "705, turn 2" / "round 3 of 5"
    score: Mapping[str, int] = field(default_factory=dict)
    facts: Mapping[str, Any] = field(default_factory=dict)  # game-specific fields of `pbem status --json`
    over: bool = False
    winner: str | None = None  # a side, or None (running, or a draw)
    result: str = ""  # "Pompey wins: 10 VP (sudden death)", "" while running


@dataclass(frozen=True)
class OptionSpec:
    """One option of ``pbem new`` (``-o NAME=VALUE``): its default, and its choices if any."""

    name: str
    help: str
    default: str | bool
    choices: tuple[str, ...] = ()

    def parse(self, text: str) -> str | bool:
        """The option's value from the command line; raises ValueError naming what would be right."""
        t = text.strip()
        if isinstance(self.default, bool):
            low = t.lower()
            if low in ("1", "yes", "true", "on"):
                return True
            if low in ("0", "no", "false", "off"):
                return False
            raise ValueError(f"option {self.name} is yes or no, not {text!r}")
        if self.choices and t not in self.choices:
            raise ValueError(f"option {self.name} is one of {', '.join(self.choices)}, not {text!r}")
        return t


def option_values(specs: Sequence[OptionSpec], given: Mapping[str, str | bool]) -> dict[str, str | bool]:
    """Every option's value: the given ones (validated), the defaults for the rest."""
    known = {s.name: s for s in specs}
    unknown = sorted(set(given) - set(known))
    if unknown:
        names = ", ".join(known) or "none"
        raise ValueError(f"unknown option {unknown[0]!r}; this game's options are: {names}")
    out: dict[str, str | bool] = {}
    for s in specs:
        v = given.get(s.name, s.default)
        out[s.name] = s.parse(v) if isinstance(v, str) else v
    return out


@dataclass(frozen=True)
class ReportContext:
    """What a report template is rendered with: ``template`` under ``templates/<game>/``."""

    template: str  # "report.txt.j2"
    values: Mapping[str, Any]
    svg: str | None = None  # the map, SVG text whose every name is escaped; templates get it as ``svg``


@runtime_checkable
class Adjudication(Protocol):
    """One game's adjudication state; every method but the mutators is pure."""

    def step(self) -> StepInfo: ...

    def check(self, side: str, text: str) -> None:
        """Raise :class:`pbem.core.orders.SubmissionRejected` listing every problem, or return."""

    def warnings(self, side: str, text: str) -> list[OrderProblem]:
        """Problems of accepted orders that cannot make them illegal but will keep a line from being
        carried out (a plan into a place the enemy holds), by the side's own knowledge; checked
        before :meth:`submit`. A game with nothing to warn of returns ``[]``."""

    def submit(self, side: str, text: str, entropy: str = "") -> list[Event]:
        """Accept (a revision replaces the side's earlier orders); resolve when all are in. ``entropy``
        is the submission's hash: a game's keyed draws of the step depend on those that closed it."""

    def resolve(self, *, deadline: bool = False) -> list[Event]:
        """Resolve the open step; with ``deadline``, the missing sides get the published defaults."""

    def conclude(self, winner: str | None, how: str) -> list[Event]:
        """End the game now, whatever step is open (a resignation; ``winner`` None: a draw): the game
        is over, :meth:`summary` names the winner (or the draw) and ``how`` in its result, the step
        number moves on (the core sends the final reports when it does), and the returned events
        (audience all) say so. Pure and deterministic: the audit's replay repeats it."""

    def copy(self) -> Adjudication:
        """An independent adjudication at the same position, exactly as its :meth:`to_json` would load
        back (with the secret kept): the store decides the next submission on a copy and renders a
        resolved step's reports from one instead of reading the stored text back, and ``pbem verify``,
        which reads only the stored texts, must find the same states and the same reports."""

    def attach_secret(self, secret: bytes | None) -> None:
        """Give the game's keyed random stream its secret after loading (the JSON never holds it)."""

    def to_json(self) -> dict[str, Any]: ...

    def summary(self) -> Summary: ...


class GameSystem(Protocol):
    """A game pbem can adjudicate; registered under :attr:`name` (see :mod:`pbem.games`)."""

    name: str  # stored in every game file: "caesar"
    title: str  # "Julius Caesar (Columbia Games, 2010)"
    sides: tuple[str, ...]
    options: tuple[OptionSpec, ...]
    # A game installed from another package may also set ``template_folder`` (a path): its report
    # templates are then looked up there instead of in pbem's ``templates/<name>/``.

    def start(self, seed: int, options: Mapping[str, Any], position: Mapping[str, Any] | None = None, *,
              rng: RandomStream | None = None) -> tuple[Adjudication, list[Event]]:
        """A new game (or one from a custom starting ``position``) and its opening events. Its draws come
        from ``rng`` (a game file's keyed stream, or a practice game's seeded one)."""

    def load(self, data: Mapping[str, Any]) -> Adjudication:
        """An adjudication from :meth:`Adjudication.to_json`."""

    def load_position(self, text: str, source: str) -> dict[str, Any]:
        """A custom starting position (``pbem new --scenario FILE``) as stored JSON."""

    def report(self, adj: Adjudication, events: Sequence[Event], viewer: str | None, *, since: int,
               deadline: str | None, fmt: str, report_id: str = "",
               previous: Adjudication | None = None) -> ReportContext:
        """A side's report (``viewer`` None: the moderator's), built from that side's view only.
        ``report_id`` is the report's place in the hash chain, for the report to state; ``previous`` is
        the state of the recipient's last report (None for his first), for what changed since."""

    def random_orders(self, adj: Adjudication, side: str, seed: int) -> str:
        """A random legal submission for ``side`` at the open step (tests, samples, smoke runs)."""

    def describe(self, adj: Adjudication) -> str:
        """The whole state for the moderator (``pbem state``)."""

    def position(self, adj: Adjudication) -> dict[str, Any]:
        """The whole position as a document (``pbem state --json``; the moderator's)."""

    def simulate(self, games: int, seed: int, options: Mapping[str, Any],
                 clock: Callable[[], float] | None = None) -> dict[str, Any]:
        """Play ``games`` complete random games (``pbem simulate``): a JSON-able tally (``games``,
        ``decisions``, ``seconds``, ``games_per_second``, ``decisions_per_second``, ``tally``)."""


@runtime_checkable
class ComputerPlayers(Protocol):
    """A game system with computer players (``pbem bot``, ``pbem new --computer``, ``pbem simulate --play``).

    A computer player is given only what its side may see: the events visible to that side and the
    adjudication, from which the game builds that side's view alone. Its randomness comes from
    ``seed``, never from the game's dice; its thinking time from ``clock`` and ``strength``."""

    def computer_answer(self, adj: Adjudication, events: Sequence[Event], side: str, *, strength: float,
                        iterations: int | None, seed: int, clock: Callable[[], float]) -> tuple[str, list[str]]:
        """The submission (order text) for ``side`` at the open step, and a few lines on why."""

    def match(self, games: int, seed: int, options: Mapping[str, Any], players: Mapping[str, str], *,
              strength: float, iterations: int | None, clock: Callable[[], float]) -> dict[str, Any]:
        """Whole games between named computer players; a JSON-able tally with ``lines`` to print."""
