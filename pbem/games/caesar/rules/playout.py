"""Random legal playouts: the soak test and ``pbem simulate``.

The random player draws from its own stream (not the game's), so the game's
dice stay the game's. Moves are sampled hierarchically (end the phase, or a
random movable block and one of its legal paths) to keep playouts fast; every
other decision is a uniform pick from ``Game.legal``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pbem.core.events import Event
from pbem.core.rng import Rng
from pbem.errors import EngineError
from pbem.games.caesar.rules import cards, levy
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.choices import (
    Choice,
    Decision,
    DecisionKind,
    Discard,
    EndDisband,
    EndLevies,
    EndMoves,
    Levy,
    LevyStep,
    Move,
    Play,
    SeaMove,
)
from pbem.games.caesar.rules.game import Game, new_game
from pbem.games.caesar.rules.movement import block_paths, movable_blocks, sea_moves_open, sea_paths
from pbem.games.caesar.rules.state import Options

# the decision kinds random_choice tells apart, as module names (an Enum class's attribute is slow to read)
_MOVES, _LEVIES, _PLAY, _DISCARD = DecisionKind.MOVES, DecisionKind.LEVIES, DecisionKind.PLAY, DecisionKind.DISCARD
_WINTER_DISBAND = DecisionKind.WINTER_DISBAND


def random_choice(g: Game, d: Decision, rng: Rng) -> Choice:
    kind = d.kind
    if kind is _MOVES:
        c = g.state.command
        assert c is not None
        if rng.below(4) == 0:
            return EndMoves()
        blocks = movable_blocks(g, d.side)
        rng.shuffle(blocks)
        by_sea_open = sea_moves_open(c)  # else no block has a sea move
        for bid in blocks[:4]:
            # a uniform pick from the block's sea moves, then its moves (only the one picked is made)
            by_sea = sea_paths(g, d.side, bid) if by_sea_open else []
            by_land = block_paths(g, d.side, bid)
            if by_sea or by_land:
                i = rng.below(len(by_sea) + len(by_land))
                return SeaMove(bid, by_sea[i]) if i < len(by_sea) else Move(bid, by_land[i - len(by_sea)])
        return EndMoves()
    if kind is _LEVIES:
        if rng.below(6) == 0:
            return EndLevies()
        # a uniform pick from legal(d) (EndLevies, the new blocks, then the steps), made without
        # building every choice
        c = g.state.command
        assert c is not None
        places = levy.new_block_places(g, d.side) if c.lp >= 1 else []
        n_pairs = sum(len(cities) for _, cities in places)
        steps = levy.step_blocks(g, d.side) if c.lp >= 1 else []
        i = rng.below(1 + n_pairs + len(steps))
        if i == 0:
            return EndLevies()
        if i <= n_pairs:
            k = i - 1
            for bid, cities in places:
                if k < len(cities):
                    return Levy(bid, cities[k])
                k -= len(cities)
        return LevyStep(steps[i - 1 - n_pairs])
    if kind is _PLAY or kind is _DISCARD:
        # a uniform pick from legal(d), made without building every choice
        names = cards.legal_cards(g, d)
        if not names:
            raise EngineError(f"no legal choice for {d}")
        name = names[rng.below(len(names))]  # rng.choice
        return Play(name) if kind is _PLAY else Discard(name)
    if kind is _WINTER_DISBAND and rng.below(8) != 0:
        return EndDisband()
    opts = list(g.legal(d))
    if not opts:
        raise EngineError(f"no legal choice for {d}")
    return rng.choice(opts)


def random_decisions(g: Game, rng: Rng, n: int) -> list[Event]:
    """Make up to ``n`` random legal decisions in ``g`` (fewer if the game ends); returns their events."""
    log: list[Event] = []
    for _ in range(n):
        if g.is_over():
            break
        pend = g.pending()
        d = pend[rng.below(len(pend))]
        log += g.apply(d.side, random_choice(g, d, rng))
    return log


@dataclass
class PlayoutResult:
    seed: int
    winner: Side | None
    reason: str
    decisions: int
    year: int
    trail: list[tuple[str, str]] = field(default_factory=list)


class PlayoutError(Exception):
    def __init__(self, seed: int, trail: list[tuple[str, str]], cause: BaseException) -> None:
        self.seed = seed
        self.trail = trail
        self.cause = cause
        super().__init__(f"game with seed {seed} failed after {len(trail)} decisions: {type(cause).__name__}: {cause}")


def play_random_game(
    seed: int,
    options: Options | None = None,
    *,
    keep_trail: bool = True,
    check: Callable[[Game], None] | None = None,
    max_decisions: int = 50_000,
) -> PlayoutResult:
    """Play one whole game with random legal choices. Raises :class:`PlayoutError` on any failure."""
    trail: list[tuple[str, str]] = []
    try:
        g = new_game(seed, options)
        rng = Rng(seed ^ 0x5DEECE66D)
        n = 0
        while not g.is_over():
            pend = g.pending()
            if not pend:
                raise EngineError("no pending decision but the game is not over")
            d = pend[0] if len(pend) == 1 else pend[rng.below(len(pend))]
            ch = random_choice(g, d, rng)
            if keep_trail:
                trail.append((d.side.value, repr(ch)))
            if check is None:
                g.apply_legal(d, ch)
            else:  # the soak test: every choice is checked as a player's would be
                g.apply(d.side, ch)
            n += 1
            if check is not None:
                check(g)
            if n > max_decisions:
                raise EngineError(f"game did not end after {max_decisions} decisions")
        r = g.state.result
        assert r is not None
        return PlayoutResult(seed, r.winner, r.reason, n, g.state.year, trail)
    except PlayoutError:
        raise
    except Exception as exc:  # noqa: BLE001 - reported with the seed and trail that reproduce it
        raise PlayoutError(seed, trail, exc) from exc


@dataclass
class SimulationReport:
    games: int
    seconds: float
    decisions: int
    tally: dict[str, int]

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else float("inf")

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds else float("inf")


def simulate(
    games: int,
    seed: int,
    options: Options | None = None,
    *,
    keep_trail: bool = False,
    clock: Callable[[], float] | None = None,
) -> SimulationReport:
    """Play ``games`` random games (seeds ``seed``, ``seed + 1``, ...). The engine reads no clock:
    pass one (``time.perf_counter``) to have the report's ``seconds`` measured."""
    tally = {"Caesar": 0, "Pompey": 0, "draw": 0}
    decisions = 0
    start = clock() if clock else 0.0
    for i in range(games):
        r = play_random_game(seed + i, options, keep_trail=keep_trail)
        tally[r.winner.value if r.winner else "draw"] += 1
        decisions += r.decisions
    return SimulationReport(games, (clock() - start) if clock else 0.0, decisions, tally)
