"""Soak tests: whole random games (seeded) must keep every invariant.

Each property plays complete games with :func:`pbem.games.caesar.rules.playout.play_random_game`
(random legal choices) and checks, after every decision, the invariants of
:func:`pbem.games.caesar.rules.invariants.violations`: no block lost or duplicated, strengths in
range, no location holding both sides outside the command and battle phases, road
limits kept, VP equal to what the board shows, no game past 709. Two more properties:
the position survives a JSON round trip at sampled points, and the same seed gives
the same event stream.

Scale with ``PBEM_SOAK_GAMES=<n>`` (games per property; the default keeps this file
well under a minute). A failure names the seed; replay it with
``play_random_game(seed, check=...)``.
"""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.core.rng import Rng
from pbem.games.caesar.rules.game import Game, new_game
from pbem.games.caesar.rules.invariants import violations
from pbem.games.caesar.rules.playout import play_random_game, random_choice
from pbem.games.caesar.rules.state import LAST_YEAR, Options, Phase

GAMES = int(os.environ.get("PBEM_SOAK_GAMES", "0") or 0)
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
BASE = settings(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


def _n(default: int) -> int:
    return GAMES or default


def _check_invariants(g: Game) -> None:
    problems = violations(g)
    assert not problems, f"year {g.state.year} turn {g.state.turn} {g.state.phase.value}: {problems}"


def _finished(result: Any) -> None:
    assert result.year <= LAST_YEAR, f"the game went on to {result.year}"
    assert result.reason, "a finished game says why it ended"


@settings(BASE, max_examples=_n(80))
@given(seed=SEEDS)
def test_random_games_keep_invariants(seed: int) -> None:
    _finished(play_random_game(seed, check=_check_invariants, keep_trail=False))


@settings(BASE, max_examples=_n(25))
@given(seed=SEEDS)
def test_random_tournament_games_keep_invariants(seed: int) -> None:
    _finished(play_random_game(seed, Options(tournament=True), check=_check_invariants, keep_trail=False))


class _RoundTrip:
    """A ``check`` hook: every ``every`` decisions and at each change of phase, save and reload the position."""

    def __init__(self, every: int) -> None:
        self.every = every
        self.n = 0
        self.checked = 0
        self.phases: set[Phase] = set()

    def __call__(self, g: Game) -> None:
        self.n += 1
        if self.n % self.every and g.state.phase in self.phases:
            return
        doc = g.to_json()
        text = json.dumps(doc, sort_keys=True)
        again = Game.from_json(json.loads(text))
        assert again.to_json() == doc, f"decision {self.n}: the position changed in a JSON round trip"
        assert again.pending() == g.pending(), f"decision {self.n}: pending decisions changed in a JSON round trip"
        for d in g.pending()[:1]:
            assert list(again.legal(d)) == list(g.legal(d)), f"decision {self.n}: legal choices changed in a round trip"
        self.checked += 1
        self.phases.add(g.state.phase)


@settings(BASE, max_examples=_n(25))
@given(seed=SEEDS, every=st.integers(min_value=7, max_value=23))
def test_position_round_trip(seed: int, every: int) -> None:
    hook = _RoundTrip(every)
    play_random_game(seed, check=hook, keep_trail=False)
    assert {Phase.CARD, Phase.COMMAND} <= hook.phases


def _event_stream(seed: int, options: Options | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The whole game as ``play_random_game`` plays it, keeping every event."""
    g = new_game(seed, options)
    rng = Rng(seed ^ 0x5DEECE66D)  # the random player's stream, as in playout.play_random_game
    stream = [e.to_json() for e in g.events]
    while not g.is_over():
        pend = g.pending()
        d = pend[0] if len(pend) == 1 else pend[rng.below(len(pend))]
        stream.extend(e.to_json() for e in g.apply(d.side, random_choice(g, d, rng)))
    return stream, g.to_json()


@settings(BASE, max_examples=_n(10))
@given(seed=SEEDS)
def test_same_seed_same_game(seed: int) -> None:
    first, end1 = _event_stream(seed)
    second, end2 = _event_stream(seed)
    assert first == second
    assert end1 == end2
    r = play_random_game(seed, keep_trail=False)
    assert r.decisions > 0 and end1["result"]["winner"] == (r.winner.value if r.winner else None)
    assert any(e["kind"] == "reveal" for e in first), "a whole game reveals cards"


def test_different_seeds_differ() -> None:
    a, _ = _event_stream(1)
    b, _ = _event_stream(2)
    assert a != b
