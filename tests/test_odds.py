"""Battle odds: estimated by simulation from what the reader's side knows, never from hidden truth."""

from __future__ import annotations

from conftest import play_random
from pbem.core.rng import Rng
from pbem.games.caesar.ai.odds import SAMPLES, battle_odds, pending_battles
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.game import Game, new_game
from pbem.games.caesar.rules.state import BlockStatus
from pbem.games.caesar.steps.session import Session
from pbem.games.caesar.system import SYSTEM, CaesarAdjudication
from pbem.render import render


def _contested(seed: int) -> tuple[Game, list]:  # type: ignore[type-arg]
    """A practice game played at random until a battle is pending (before it is fought: nothing revealed)."""
    g = new_game(seed, rng=Rng(seed, practice=True))
    log = play_random(g, Rng(seed), log=list(g.events), until=lambda g, log: bool(g.state.contests))
    assert pending_battles(g) and g.state.battle is None
    return g, log


def _other_truth(g: Game, hidden: Side) -> Game:
    """``g`` with every block of ``hidden`` on the map at another strength (what the enemy cannot see)."""
    h = g.copy()
    for bid, b in h.state.blocks.items():
        info = h.board.blocks[bid]
        if b.side is hidden and b.status is BlockStatus.MAP and bid != "Cleopatra":
            others = [s for s in info.strengths() if s != b.strength]
            if others:
                b.strength = others[0]
    return h


def _report(g: Game, log: list, side: str) -> str:  # type: ignore[type-arg]
    ctx = SYSTEM.report(CaesarAdjudication(Session(g)), log, side, since=0, deadline=None, fmt="text")
    return render("caesar", ctx)


def _odds_section(text: str) -> str:
    assert "BATTLE ODDS" in text
    return text.split("BATTLE ODDS", 1)[1].split("\nCARDS\n", 1)[0]


def test_two_games_that_differ_only_in_hidden_enemy_blocks_give_the_same_odds_text() -> None:
    for seed in (1, 3):
        g, log = _contested(seed)
        for viewer in Side:
            other = _other_truth(g, viewer.enemy)
            mine = _odds_section(_report(g, log, viewer.value))
            assert _odds_section(_report(other, log, viewer.value)) == mine
            # the same change is seen by the side that owns the blocks: the test could fail
            theirs = _odds_section(_report(g, log, viewer.enemy.value))
            assert _odds_section(_report(other, log, viewer.enemy.value)) != theirs
            for loc in pending_battles(g):
                assert f"  {loc}: you win " in mine and f"({SAMPLES} simulated battles)" in mine


def test_odds_are_deterministic_and_add_up() -> None:
    g, log = _contested(2)
    loc = pending_battles(g)[0]
    a, b = (battle_odds(g, log, s, loc) for s in Side)
    assert a is not None and b is not None
    assert battle_odds(g, log, Side.CAESAR, loc) == a
    for o in (a, b):
        assert o.samples == SAMPLES and 0 <= o.wins <= o.samples
        assert all(0 <= o.killed[k] <= o.present[k] <= o.samples for k in o.killed)
        assert all(v >= 0 for v in (*o.steps_lost.values(), *o.eliminated.values()))
    assert g.state.contests and g.state.battle is None  # the game itself is untouched


def test_a_lost_cause_is_shown_as_one() -> None:
    """The side's own blocks count exactly: all of its blocks in the battle at strength I lose more often."""
    g, log = _contested(1)
    loc = pending_battles(g)[0]
    for side in Side:
        weak = g.copy()
        for bid in weak.blocks_at(loc, side):
            weak.state.blocks[bid].strength = 1
        strong = g.copy()
        for bid in strong.blocks_at(loc, side):
            strong.state.blocks[bid].strength = max(strong.board.blocks[bid].strengths())
        w, s = battle_odds(weak, log, side, loc), battle_odds(strong, log, side, loc)
        assert w is not None and s is not None and w.wins < s.wins


def test_moderator_and_old_games_get_no_odds() -> None:
    g, log = _contested(1)
    assert "BATTLE ODDS" not in render("caesar", SYSTEM.report(CaesarAdjudication(Session(g)), log, None, since=0,
                                                               deadline=None, fmt="text"))
    old = g.copy()
    old.state.rng = Rng(1)  # a game made before pbem had secrets: its reports stay what they were
    assert "BATTLE ODDS" not in _report(old, log, "Caesar")
