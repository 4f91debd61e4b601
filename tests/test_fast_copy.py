"""The engine's direct copies give exactly what the JSON round trips they replace gave.

``GameState.copy`` (behind ``Game.copy``) stands for ``GameState.from_json(state.to_json())`` and
``Belief.sample`` for ``Game(GameState.from_json(belief.sample_state(rng)))``: the same values, the
same order of every dict, list and set filled from a sorted list, and the same draws, so every
playout, every bot and every battle odds figure made from a copy stays what it was.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import pbem.core.rng as rng_module
from pbem.core.events import Event
from pbem.core.rng import KeyedStream, Rng
from pbem.games.caesar.ai.belief import Belief, observe
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.choices import Decision, DecisionKind
from pbem.games.caesar.rules.game import Game, new_game
from pbem.games.caesar.rules.playout import random_choice
from pbem.games.caesar.rules.state import GameState


def _orders(st: GameState) -> dict[str, Any]:
    """Every order the position format's round trip fixes, and the values (as JSON, in dict order)."""
    out: dict[str, Any] = {
        "json": json.dumps(st.to_json()),
        "blocks": list(st.blocks),
        "hands": list(st.hands),
        "sealed": json.dumps({k.value: v for k, v in st.sealed.items()}),
        "played": list(st.played),
        "effective": list(st.effective),
        "prev_effective": list(st.prev_effective),
        "road_use": list(st.road_use),
        "contests": [(loc, [(e.side, e.frm, e.block) for e in c.entries], list(c.main)) for loc, c in st.contests.items()],
        "moved": list(st.moved),
    }
    if st.battle:
        b = st.battle
        out["battle"] = (list(b.reserves), list(b.acted), list(b.regrouped), list(b.retreat_use), list(b.sea_retreats),
                         list(b.regroup_use))
    return out


def _round_trip(g: Game) -> Game:
    """What ``Game.copy`` was: the position through its JSON form, the stream cloned."""
    t = Game(GameState.from_json(g.state.to_json()), g.board)
    t.state.rng = g.state.rng.clone()
    return t


def _positions(seeds: range, every: int) -> list[tuple[Game, list[Event]]]:
    """Positions along random games (every ``every``-th decision), each with its event log."""
    out: list[tuple[Game, list[Event]]] = []
    for seed in seeds:
        g = new_game(seed)
        log = list(g.events)
        rng = Rng(seed ^ 0x77)
        n = 0
        while not g.is_over():
            if n % every == 0 or g.state.battle is not None and n % 3 == 0:
                out.append((g.copy(), list(log)))
            pend = g.pending()
            d = pend[rng.below(len(pend))]
            log += g.apply(d.side, random_choice(g, d, rng))
            n += 1
        out.append((g.copy(), list(log)))
    return out


def test_copy_is_the_json_round_trip_in_every_value_and_order() -> None:
    for seed in range(1, 9):
        g = new_game(seed)
        rng = Rng(seed)
        while not g.is_over():
            a, b = g.copy(), _round_trip(g)
            assert a.state == b.state
            assert _orders(a.state) == _orders(b.state)
            assert a._n == b._n and list(a._at) == list(b._at) and a._mine == b._mine
            pend = g.pending()
            d = pend[rng.below(len(pend))]
            g.apply(d.side, random_choice(g, d, rng))
        assert g.copy().state == _round_trip(g).state


def test_copy_is_independent_and_keeps_a_keyed_streams_secret() -> None:
    g = new_game(5, rng=KeyedStream.new(b"k" * 32, "g1"))
    t = g.copy()
    assert t.state == g.state and t.state.rng is not g.state.rng
    assert isinstance(t.state.rng, KeyedStream) and t.state.rng.secret == b"k" * 32
    assert t.state.rng.below(1000) == g.state.rng.clone().below(1000)
    bid = next(iter(t.state.blocks))
    t.state.blocks[bid].strength += 7
    t.state.hands[Side.CAESAR].append("x")
    t.state.moved.add("y")
    assert g.state.blocks[bid].strength != t.state.blocks[bid].strength
    assert "x" not in g.state.hands[Side.CAESAR] and "y" not in g.state.moved


def _reference_sample(belief: Belief, rng: Rng) -> Game:
    """What ``Belief.sample`` was: the sampled position through its JSON form."""
    g = Game(GameState.from_json(belief.sample_state(rng)), belief.board)
    if belief.base["enemy_sealed"]:
        enemy = belief.side.enemy
        kind = {"deploy": DecisionKind.DEPLOY, "discard": DecisionKind.DISCARD}.get(g.state.phase.value, DecisionKind.PLAY)
        g.apply(enemy, rng.choice(list(g.legal(Decision(enemy, kind)))))
    return g


@pytest.mark.parametrize("rejecting", [False, True], ids=["real limits", "half the words rejected"])
@pytest.mark.parametrize("full", [0.0, 0.6])
def test_sample_is_the_json_sample_with_the_same_draws(full: float, rejecting: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # Belief.sample reads its draws from the stream's words ahead (Rng.ahead); the JSON sample makes
    # them one by one with Rng.below. With about half the words rejected (the real limits reject one in
    # 2**56 at most), the paths that draw past a rejected word are taken too.
    if rejecting:
        monkeypatch.setattr(rng_module, "LIMITS", tuple(1 << 63 for _ in range(256)))
    checked = battles = 0
    for g, log in _positions(range(1, 5), 23):
        for side in Side:
            belief = Belief(observe(g, log, side), full=full)
            for k in range(2):
                fast, slow = Rng(1000 + k), Rng(1000 + k)
                a, b = belief.sample(fast), _reference_sample(belief, slow)
                assert fast == slow  # the same draws
                assert a.state == b.state
                assert _orders(a.state) == _orders(b.state)
                assert a._n == b._n and list(a._at) == list(b._at)
                checked += 1
                battles += a.state.battle is not None
    assert checked > 100 and battles > 0


def test_first_turn_option_is_the_first_of_the_turn_options() -> None:
    from pbem.games.caesar.rules.battle import first_turn_option, turn_options

    seen = {"fire": 0, "pass": 0, "retreat": 0}
    for seed in range(1, 60):
        g = new_game(seed)
        rng = Rng(seed ^ 0x99)
        while not g.is_over():
            pend = g.pending()
            for d in pend:
                if d.kind is DecisionKind.BATTLE_TURN:
                    for b in d.get("blocks"):
                        options = turn_options(g, b)
                        first = first_turn_option(g, b)
                        assert first == options[0]
                        seen[first.action.value] += 1
            d = pend[rng.below(len(pend))]
            g.apply(d.side, random_choice(g, d, rng))
    assert seen["fire"] and seen["retreat"], seen  # a lone "pass" comes first only rarely (auto passes most)


def test_a_session_copy_is_its_json_round_trip() -> None:
    """StepState.copy (behind every trial of a submission) gives what Session.from_json of its JSON gave:
    the same JSON, the same order of every table, the same draws afterwards."""
    from pbem.games import find_game
    from pbem.games.caesar.rules.autoplay import random_orders
    from pbem.games.caesar.steps.session import Session

    system = find_game("caesar")
    checked = with_sealed = 0
    for seed in (3, 8):
        adj, _ = system.start(seed, {}, None, rng=Rng(seed))
        rng = Rng(seed + 100)
        for _ in range(60):
            session = adj.session  # type: ignore[attr-defined]
            step = session.step()
            if not step.awaiting:
                break
            for side in step.awaiting:
                fast = session.copy()
                slow = Session.from_json(session.to_json())
                slow.game.state.rng = session.game.state.rng.clone()
                assert json.dumps(fast.to_json()) == json.dumps(slow.to_json())
                for table in ("sealed", "plans", "winter", "collected", "entropy"):
                    assert list(getattr(fast, table).items()) == list(getattr(slow, table).items()), table
                assert fast.game.state.rng.below(10**6) == slow.game.state.rng.below(10**6)
                checked += 1
                with_sealed += bool(session.sealed)
                if adj.step().number != step.number:
                    break
                adj.submit(side.value, random_orders(session, side, rng), "")
    assert checked > 50 and with_sealed > 10
