"""The indexes the game keeps as blocks move (the places each side holds, the levy pools, the
Friendly cities, the blocks on the map) agree with the blocks after every decision, and the
quick questions asked of them (any_levy, movable_blocks) answer as the full lists do."""

from __future__ import annotations

import pytest

from pbem.core.rng import Rng
from pbem.games.caesar.rules import levy
from pbem.games.caesar.rules.board import SIDES
from pbem.games.caesar.rules.choices import DecisionKind
from pbem.games.caesar.rules.game import new_game
from pbem.games.caesar.rules.invariants import violations
from pbem.games.caesar.rules.movement import movable_blocks
from pbem.games.caesar.rules.playout import random_choice
from pbem.games.caesar.rules.state import BlockStatus, Options


@pytest.mark.parametrize("seed,tournament", [(11, False), (12, True), (13, False)])
def test_indexes_agree_with_the_blocks_after_every_decision(seed: int, tournament: bool) -> None:
    g = new_game(seed, Options(tournament=tournament))
    rng = Rng(seed * 7)
    levies = 0
    while not g.is_over():
        for side in SIDES:
            st = g.state.blocks
            assert g.held_by(side) == {b.loc for b in st.values() if b.status is BlockStatus.MAP and b.side is side}
            assert list(g.pool_blocks(side)) == [
                bid for bid in g.board.levy_catalogue[side] if st[bid].status is BlockStatus.POOL]
            assert g.on_map_sorted(side) == tuple(g.on_map(side))
        pend = g.pending()
        d = pend[rng.below(len(pend))]
        if d.kind is DecisionKind.LEVIES:
            full = bool(levy.step_options(g, d.side) or levy.new_block_options(g, d.side))
            assert levy.any_levy(g, d.side) is full
            levies += 1
        if d.kind is DecisionKind.MOVES:
            c = g.state.command
            assert c is not None
            moved, blocks = g.state.moved, g.state.blocks
            want = [b for b in g.on_map(d.side) if b not in moved
                    and (c.mp >= 1 and not (c.event and c.activated) or blocks[b].loc in c.activated)]
            assert movable_blocks(g, d.side) == want
        g.apply(d.side, random_choice(g, d, rng))
        assert violations(g) == []
    assert levies > 5


def test_a_copied_game_keeps_its_own_indexes() -> None:
    g = new_game(5)
    rng = Rng(99)
    for _ in range(120):
        pend = g.pending()
        d = pend[rng.below(len(pend))]
        g.apply(d.side, random_choice(g, d, rng))
    h = g.copy()
    for side in SIDES:
        assert h.held_by(side) == g.held_by(side) and h.held_by(side) is not g.held_by(side)
        assert h.pool_blocks(side) == g.pool_blocks(side)
    for _ in range(60):
        pend = h.pending()
        d = pend[rng.below(len(pend))]
        h.apply(d.side, random_choice(h, d, rng))
    assert violations(g) == [] and violations(h) == []
