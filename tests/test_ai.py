"""The computer players: the belief sampler, the players' submissions, and that the bot cannot cheat."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core.events import Event
from pbem.core.rng import Rng
from pbem.games.caesar.ai import belief as belief_mod
from pbem.games.caesar.ai.belief import Belief, observe
from pbem.games.caesar.ai.match import Tally, observe_session, play_match, wilson
from pbem.games.caesar.ai.players import (
    Bot,
    Budget,
    GreedyPlayer,
    RandomPlayer,
    attack_moves,
    evaluate,
    heuristic,
    move_plans,
)
from pbem.games.caesar.rules.autoplay import random_orders
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.choices import EndMoves, Move
from pbem.games.caesar.rules.game import Game, new_game
from pbem.games.caesar.rules.invariants import violations
from pbem.games.caesar.rules.playout import random_decisions
from pbem.games.caesar.rules.state import BlockStatus, CommandStage, Options
from pbem.games.caesar.steps.session import BattleMode, Session, Settings, StepKind
from pbem.games.caesar.view.history import visible_events
from pbem.games.caesar.view.views import build_view

C, P = Side.CAESAR, Side.POMPEY


def _played(seed: int, n: int) -> tuple[Game, list[Event]]:
    g = new_game(seed)
    log = list(g.events)
    g.events = []
    log += random_decisions(g, Rng(seed ^ 0xABC), n)
    return g, log


# ---- the belief sampler -------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(0, 1200), draw=st.integers(0, 2**32))
def test_every_sample_is_legal_and_agrees_exactly_with_what_the_side_has_seen(seed: int, n: int, draw: int) -> None:
    g, log = _played(seed, n)
    for side in Side:
        obs = observe(g, log, side)
        belief = Belief(obs, full=0.6 if draw % 2 else 0.0)  # the bot's belief leans to full strength
        for k in range(3):
            sample = belief.sample(Rng(draw + k))
            assert violations(sample) == []
            assert sample.problems() == []
            assert observe(sample, log, side) == obs  # the same observation, field for field
            assert build_view(sample, log, side) == build_view(g, log, side)  # the same report
            # the side's own pieces and cards are exact
            own = {b: s for b, s in sample.state.blocks.items() if s.status is BlockStatus.MAP and s.side is side}
            assert own == {b: s for b, s in g.state.blocks.items() if s.status is BlockStatus.MAP and s.side is side}
            assert sample.state.hands[side] == g.state.hands[side]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(0, 1500))
def test_an_observation_is_made_from_its_events_as_they_are(seed: int, n: int) -> None:
    """Each event's canonical text is made once and kept: an observation is the one made afresh, and
    the belief reads this Year's events, from the last deal on, as they were observed."""
    g, log = _played(seed, n)
    for side in Side:
        obs = observe(g, log, side)
        belief_mod._event_text.cache_clear()
        assert observe(g, log, side) == obs
        visible = [e for _, e in visible_events(log, side)]
        assert list(obs.events) == [json.dumps(e.to_json(), sort_keys=True, separators=(",", ":")) for e in visible]
        start = max((i for i, e in enumerate(visible) if e.kind == "year"), default=0)
        assert Belief(obs).this_year == visible[start:]
        assert belief_mod.known_eliminated(visible, side.enemy, g.board) == {
            e.data["block"] for e in visible[start:] if e.kind in ("eliminated", "killed")
            and g.board.blocks.get(e.data.get("block", "")) is not None and g.board.blocks[e.data["block"]].side is side.enemy}


def test_samples_vary_the_hidden_part_and_use_only_unseen_cards() -> None:
    g, log = _played(11, 40)
    assert len(g.state.hands[P]) >= 2
    obs = observe(g, log, C)
    belief = Belief(obs)
    samples = [belief.sample(Rng(k)) for k in range(30)]
    enemy_blocks = {tuple(sorted((b, s.loc, s.strength) for b, s in x.state.blocks.items() if s.side is P and s.status is BlockStatus.MAP)) for x in samples}
    hands = {tuple(x.state.hands[P]) for x in samples}
    assert len(enemy_blocks) > 1 and len(hands) > 1
    seen = set(g.state.hands[C])
    for x in samples:
        # a card Caesar holds can be in Pompey's hand only if the deck has more than one copy
        for card in x.state.hands[P]:
            if card in seen:
                assert sum(1 for c in g.board.cards if c.name == card) > 1
        assert x.state.rng.seed != g.state.rng.seed  # the game's future dice are not known


def test_the_observation_holds_no_enemy_block_identity_strength_hand_or_dice() -> None:
    g, log = _played(5, 400)
    obs = observe(g, log, C)
    d = obs.data()
    assert "rng" not in d and isinstance(d["deck"], int) and d["hands"]["Pompey"] == len(g.state.hands[P])
    for bid, b in d["blocks"].items():
        assert not (b["status"] == "map" and b["side"] == "Pompey" and bid != "Cleopatra")
    for text in obs.events:
        assert json.loads(text)["audience"] in ("all", "Caesar")


# ---- it cannot cheat --------------------------------------------------------------------------


def _session_at(kind: StepKind, seed: int, settings: Settings | None = None) -> tuple[Session, list[Event]]:
    g = new_game(seed)
    log = list(g.events)
    g.events = []
    s = Session(g, settings or Settings())
    rng = Rng(seed)
    for _ in range(300):
        step = s.step()
        if step.kind is kind:
            return s, log
        for side in step.awaiting:
            log += s.submit(side, random_orders(s, side, rng))
            if s.step().number != step.number:
                break
    raise AssertionError(f"no {kind} step")


def _twin(s: Session, log: list[Event], side: Side, k: int) -> Session:
    """A game the same in everything ``side`` sees and different in the enemy's blocks, hand and dice."""
    twin = s.copy()
    for attempt in range(50):
        twin.game = Belief(observe_session(s, log, side)).sample(Rng(k + attempt))
        st_, real = twin.game.state, s.game.state
        if st_.hands[side.enemy] != real.hands[side.enemy] and any(
            st_.blocks[b].loc != real.blocks[b].loc or st_.blocks[b].strength != real.blocks[b].strength
            for b in real.blocks
        ):
            return twin
    raise AssertionError("no different twin found")


@pytest.mark.parametrize("kind", [StepKind.YEAR_START, StepKind.COMMAND, StepKind.CARD])
def test_games_alike_in_what_the_bot_sees_give_it_the_same_input_and_the_same_submission(kind: StepKind) -> None:
    s, log = _session_at(kind, 21)
    side = s.step().awaiting[0]
    twin = _twin(s, log, side, 99)
    assert twin.game.to_json() != s.game.to_json()
    obs, obs_twin = observe_session(s, log, side), observe_session(twin, log, side)
    assert obs == obs_twin
    bot = Bot(Budget(iterations=24, horizon=20))
    a, b = bot.answer(obs, Rng(3)), bot.answer(obs_twin, Rng(3))
    assert a == b
    s.check(side, a.text)  # and the engine accepts it in the real game, and in the twin
    twin.check(side, a.text)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_the_bot_answers_an_interactive_battle_step_with_an_order_the_engine_accepts(seed: int) -> None:
    s, log = _session_at(StepKind.BATTLE, seed, Settings(BattleMode.INTERACTIVE))
    side = s.step().awaiting[0]
    a = Bot(Budget(iterations=12, horizon=20)).answer(observe_session(s, log, side), Rng(seed))
    assert len(a.text.splitlines()) == 1
    s.submit(side, a.text)


def test_the_bot_draws_from_its_own_generator_not_the_games_dice() -> None:
    s, log = _session_at(StepKind.COMMAND, 8)
    side = s.step().awaiting[0]
    before = s.game.state.rng.to_json()
    bot = Bot(Budget(iterations=16, horizon=20))
    answers = {bot.answer(observe_session(s, log, side), Rng(seed)) for seed in range(4)}
    assert s.game.state.rng.to_json() == before
    assert len(answers) > 1  # a different seed of its own generator: a different search (its estimates differ)


# ---- the players play whole games by the rules ----------------------------------------------------


def test_a_whole_game_bot_against_greedy_every_submission_accepted() -> None:
    rec = play_match({C: Bot(Budget(iterations=4, horizon=8)), P: GreedyPlayer(cap=8)}, seed=3)
    assert rec.winner in (C, P, None) and rec.steps > 20 and rec.reason


def test_random_and_greedy_players_answer_every_step_free_deployment_included() -> None:
    rec = play_match({C: RandomPlayer(), P: GreedyPlayer(cap=6)}, seed=4, options=Options(free_deployment=True))
    assert rec.reason


def test_bot_explains_its_alternatives_with_scores() -> None:
    s, log = _session_at(StepKind.YEAR_START, 2)
    side = s.step().awaiting[0]
    a = Bot(Budget(iterations=30, horizon=10)).answer(observe_session(s, log, side), Rng(1))
    assert [what for what, _ in a.considered] == ["discard", "play"]
    for _, alts in a.considered:
        assert len(alts) > 1 and all(0.0 <= w.value <= 1.0 for w in alts)
        assert alts[0].visits >= alts[-1].visits
    assert a.text.startswith("discard ") and "\nplay " in a.text


def test_a_budget_by_clock_stops_the_search() -> None:
    ticks = iter(range(10_000))
    s, log = _session_at(StepKind.CARD, 6)
    side = s.step().awaiting[0]
    bot = Bot(Budget(iterations=None, seconds=20, clock=lambda: float(next(ticks)), horizon=5))
    a = bot.answer(observe_session(s, log, side), Rng(1))
    assert 0 < a.iterations <= 20 * 8  # stopped by the clock: no iteration cap was set
    s.check(side, a.text)


def test_heuristic_prefers_more_victory_points_and_scores_a_finished_game() -> None:
    g = new_game(1)
    assert 0.0 < heuristic(g, C) < 1.0 and abs(heuristic(g, C) + heuristic(g, P) - 1.0) < 1e-9


@pytest.mark.parametrize("seed", [3, 5])  # 3/2 (three activations), Mars (one group move)
def test_group_moves_are_legal_and_move_one_location_to_one_place(seed: int) -> None:
    s, _ = _session_at(StepKind.COMMAND, seed)
    side = s.step().awaiting[0]
    g = s.game
    assert g.state.command is not None
    mp = g.state.command.mp
    plans = move_plans(g, side)
    assert plans[0] == (EndMoves(),) and len(set(plans)) == len(plans)
    together = 0
    for plan in plans[1:]:
        trial = g.copy()
        for ch in plan:
            trial.apply(side, ch)  # raises on an illegal move
        assert len({ch.path[0] for ch in plan}) == 1 and len({ch.path[-1] for ch in plan}) == 1  # type: ignore[union-attr]
        assert trial.state.command is not None and trial.state.command.mp == mp - 1  # one activation
        together += sum(isinstance(ch, Move) for ch in plan) > 1
    assert together > 0  # some plans move several blocks together


def test_simulated_attacks_end_the_moves_legally() -> None:
    for seed in (3, 4, 6):
        s, _ = _session_at(StepKind.COMMAND, seed)
        side = s.step().awaiting[0]
        g = s.game.copy()
        attack_moves(g, side, Rng(seed))
        c = g.state.command
        assert c is None or c.side is not side or c.stage is not CommandStage.MOVES
        assert violations(g) == [] and g.problems() == []


def test_the_evaluation_is_zero_sum_and_values_blocks_and_cities() -> None:
    g, _ = _played(5, 300)
    assert abs(evaluate(g, C) + evaluate(g, P)) < 1e-9
    weaker = g.copy()
    bid = next(b for b in weaker.on_map(C) if weaker.state.blocks[b].strength > 1)
    weaker.state.blocks[bid].strength -= 1
    assert evaluate(weaker, C) < evaluate(g, C)


# ---- win rates ----------------------------------------------------------------------------------------


def test_wilson_interval() -> None:
    lo, hi = wilson(5, 10)
    assert round(lo, 4) == 0.2366 and round(hi, 4) == 0.7634
    assert wilson(0, 10)[0] == 0.0 and round(wilson(0, 10)[1], 4) == 0.2775
    assert wilson(10, 10)[1] == 1.0
    t = Tally()
    assert t.lines({C: "bot", P: "random"})[0].startswith("Caesar (bot): 0/0 wins")


def test_successive_halving_gives_every_candidate_its_share_of_a_large_budget() -> None:
    """The decision's budget is cut into one phase per halving (8 candidates: 3 phases), so a
    candidate dropped in the first phase was tried on a third of the budget's share per candidate,
    not on two samples (the earlier schedule halved every second round whatever the budget)."""
    s, log = _session_at(StepKind.COMMAND, 3)
    side = s.step().awaiting[0]
    obs = observe_session(s, log, side)
    small = Bot(Budget(iterations=48, horizon=20)).answer(obs, Rng(1))
    large = Bot(Budget(iterations=480, horizon=20)).answer(obs, Rng(1))
    first_small, first_large = small.considered[0][1], large.considered[0][1]
    assert len(first_large) == 8
    # the first decision of a command gets a third of the step's budget: 160 iterations, phases of 53
    assert min(w.visits for w in first_large) >= 160 // 3 // 8
    assert min(w.visits for w in first_large) > min(w.visits for w in first_small)
    # and the survivors of the last phase got the most
    assert max(w.visits for w in first_large) >= 2 * min(w.visits for w in first_large)
    s.check(side, large.text)
