"""The decision interface: legal choices apply, illegal ones raise and change nothing."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import play_random
from pbem.core.rng import Rng
from pbem.errors import IllegalChoiceError
from pbem.games.caesar.rules import levy
from pbem.games.caesar.rules.board import Side, default_board
from pbem.games.caesar.rules.choices import (
    Action,
    BattleAction,
    Choice,
    Disband,
    Discard,
    Levy,
    LevyStep,
    Move,
    NavisToPort,
    Play,
    Regroup,
    SeaMove,
    TakeHit,
    choice_from_json,
    choice_to_json,
)
from pbem.games.caesar.rules.game import Game, new_game

BOARD = default_board()
LOCS = sorted(BOARD.spaces)
BLOCKS = sorted(BOARD.blocks)


def advance(g: Game, rng: Rng, n: int) -> None:
    play_random(g, rng, limit=n)


def junk_choice(rng: Rng) -> Choice:
    b = rng.choice(BLOCKS)
    a, c = rng.choice(LOCS), rng.choice(LOCS)
    return rng.choice(
        [
            Move(b, (a, c)),
            Move(b, (a, rng.choice(LOCS), c)),
            SeaMove(b, (a, rng.choice(LOCS), c)),
            Levy(b, c),
            LevyStep(b),
            Play(rng.choice([x.name for x in BOARD.cards])),
            BattleAction(b, rng.choice(list(Action)), c, bool(rng.below(2))),
            TakeHit(b),
            Regroup(b, c),
            NavisToPort(b, c),
            Disband(b),
        ]
    )


@given(st.integers(0, 10_000), st.integers(0, 400))
@settings(max_examples=60, deadline=None)
def test_illegal_choices_raise_and_leave_the_position_unchanged(seed: int, steps: int) -> None:
    g = new_game(seed)
    rng = Rng(seed)
    advance(g, rng, steps)
    for _ in range(25):
        pend = g.pending()
        if not pend:
            return
        d = pend[0]
        ch = junk_choice(rng)
        legal = list(g.legal(d))
        before = json.dumps(g.to_json(), sort_keys=True)
        if ch in legal:
            continue
        try:
            g.apply(d.side, ch)
        except IllegalChoiceError as exc:
            assert str(exc)
        else:  # a junk choice the legal list does not know of was accepted: the list is incomplete
            raise AssertionError(f"{ch!r} was applied but is not in legal({d})")
        assert json.dumps(g.to_json(), sort_keys=True) == before


@given(st.integers(0, 10_000), st.integers(0, 600))
@settings(max_examples=40, deadline=None)
def test_every_listed_choice_is_legal(seed: int, steps: int) -> None:
    g = new_game(seed)
    advance(g, Rng(seed), steps)
    for d in g.pending():
        for ch in list(g.legal(d))[:40]:
            g.check(d.side, ch)  # raises if the list offered something illegal
            assert choice_from_json(json.loads(json.dumps(choice_to_json(ch)))) == ch
        if d.kind.value not in ("discard", "play", "deploy"):
            trial = g.copy()
            trial.apply(d.side, next(iter(trial.legal(d))))


@given(st.integers(0, 10_000), st.integers(0, 600))
@settings(max_examples=40, deadline=None)
def test_levy_options_match_the_rules(seed: int, steps: int) -> None:
    g = new_game(seed)
    advance(g, Rng(seed), steps)
    for side in Side:
        fast = set(levy.new_block_options(g, side))
        slow = {Levy(b, c) for b in BOARD.blocks for c in BOARD.cities() if levy.new_block_problem(g, side, b, c) is None}
        assert fast == slow
        steps_fast = set(levy.step_options(g, side))
        steps_slow = {LevyStep(b) for b in BOARD.blocks if levy.step_problem(g, side, b) is None}
        assert steps_fast == steps_slow


def test_errors_name_the_rule() -> None:
    g = new_game(1)
    for side in Side:
        g.apply(side, Discard(g.state.hands[side][0]))
    side = Side.CAESAR
    missing = next(c.name for c in BOARD.cards if c.name not in g.state.hands[side] and c.name != "Apollo")
    for card, rule in ((missing, "2.1"), ("Apollo", "C2")):
        if card == "Apollo" and "Apollo" not in g.state.hands[side]:
            g.state.hands[side].append("Apollo")
        try:
            g.apply(side, Play(card))
        except IllegalChoiceError as exc:
            assert exc.rule == rule
            assert card in str(exc)
        else:
            raise AssertionError(f"playing {card} must fail")


def test_same_seed_same_game() -> None:
    def run(seed: int) -> list[str]:
        g = new_game(seed)
        rng = Rng(99)
        out = [json.dumps(e.to_json(), sort_keys=True) for e in play_random(g, rng, limit=300, first=True)]
        out.append(json.dumps(g.to_json(), sort_keys=True))
        return out

    assert run(11) == run(11)
    assert run(11) != run(12)


@given(st.integers(0, 10_000), st.integers(0, 800))
@settings(max_examples=40, deadline=None)
def test_choices_written_as_orders_read_back_as_the_same_choices(seed: int, steps: int) -> None:
    from pbem.games.caesar.orders.language import OrderLine, parse_order
    from pbem.games.caesar.orders.translate import answer_choice, command_choices, order_for

    g = new_game(seed)
    advance(g, Rng(seed), steps)
    for d in g.pending():
        for ch in list(g.legal(d))[:60]:
            order = order_for(g, d.side, ch)
            if order is None:
                continue
            assert parse_order(str(order), d.side) == order
            if d.kind.value in ("moves", "levies"):
                trial = g.copy()
                lines = [OrderLine(1, str(order), order)]
                got = [c for _, cs in command_choices(trial, d.side, lines, lambda ln, m: None) for c in cs]
                assert ch in got, (ch, got)
            elif d.kind.value in ("battle-turn", "hit", "battle-order"):
                assert answer_choice(g, d.side, d, order) == ch
