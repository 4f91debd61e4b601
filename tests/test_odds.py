"""Battle odds: estimated by simulation from what the reader's side knows, never from hidden truth."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

import pytest

import pbem.core.rng as rng_module
from conftest import play_random
from pbem.core.rng import Rng
from pbem.games.caesar.ai import odds
from pbem.games.caesar.ai.belief import Belief, observe
from pbem.games.caesar.ai.odds import SAMPLES, battle_odds, pending_battles
from pbem.games.caesar.rules import battle as battle_mod
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.choices import DecisionKind
from pbem.games.caesar.rules.game import Game, new_game
from pbem.games.caesar.rules.state import BattleState, BlockStatus, Contest, Control, Entry, Phase
from pbem.games.caesar.steps.session import Session
from pbem.games.caesar.system import SYSTEM, CaesarAdjudication
from pbem.render import render


@pytest.fixture(params=["real limits", "half the words rejected"])
def limits(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The draws' rejection limits (pbem.core.rng.LIMITS): the real ones reject one word in 2**56 at
    most; the second set rejects about half of them, so that every path that draws past a rejected
    word (Rng.below's loop, and the draws read from Rng.ahead's words) is taken."""
    if request.param != "real limits":
        monkeypatch.setattr(rng_module, "LIMITS", tuple(1 << 63 for _ in range(256)))
    return str(request.param)


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


# ---- the odds' own fight and sample, held to the engine's ------------------------------------------

#: battle_odds as the code before the odds had their own fight gave it (commit 4b67496), for the
#: battles of practice games played at random (seed) until one is pending, then 3 decisions more:
#: (seed, extra decisions, place, side) -> (samples, wins, steps lost by Caesar, by Pompey,
#: blocks eliminated of Caesar, of Pompey, (Caesar, Pompey) killed, (Caesar, Pompey) present)
PINNED = {
    (1, 0, "Tarraco", "Caesar"): (200, 5, 587, 159, 195, 38, (0, 0), (0, 27)),
    (1, 3, "Tarraco", "Pompey"): (200, 200, 401, 42, 200, 0, (7, 0), (7, 0)),
    (2, 3, "Narbo", "Caesar"): (200, 7, 187, 53, 187, 15, (0, 0), (0, 15)),
    (3, 0, "Roma", "Pompey"): (200, 169, 332, 136, 169, 22, (3, 22), (4, 200)),
    (4, 3, "Bilbilis", "Caesar"): (200, 170, 195, 295, 30, 141, (0, 0), (0, 3)),
    (4, 3, "Narbo", "Pompey"): (200, 31, 183, 496, 80, 144, (2, 0), (9, 0)),
    (5, 3, "Narbo", "Pompey"): (200, 0, 196, 400, 0, 200, (0, 0), (0, 0)),
    (7, 3, "Sipontum", "Pompey"): (200, 169, 337, 136, 169, 24, (5, 24), (9, 200)),
    (8, 3, "Tarraco", "Caesar"): (200, 35, 599, 308, 247, 104, (0, 3), (0, 7)),
}


def test_the_odds_are_those_of_the_engines_fight() -> None:
    """Reports are stored and re-rendered byte for byte: the odds never change for a position."""
    for seed in sorted({k[0] for k in PINNED}):
        g = new_game(seed, rng=Rng(seed, practice=True))
        log = play_random(g, Rng(seed), log=list(g.events), until=lambda g, log: bool(g.state.contests))
        for extra in (0, 3):
            if extra:
                log = play_random(g, Rng(seed + 100), log=log, limit=extra)
            for (s, e, loc, side), want in PINNED.items():
                if (s, e) == (seed, extra):
                    o = battle_odds(g, log, Side(side), loc)
                    assert o is not None
                    got = (o.samples, o.wins, o.steps_lost[Side.CAESAR], o.steps_lost[Side.POMPEY], o.eliminated[Side.CAESAR],
                           o.eliminated[Side.POMPEY], tuple(o.killed.values()), tuple(o.present.values()))
                    assert got == want, (seed, extra, loc, side)


def _battle_somewhere(g: Game, r: Rng) -> str | None:
    """A random battle in ``g`` (changed in place), about to be fought: blocks of both sides at a
    random place at random strengths, entries from its neighbours (some of them reserves), sometimes
    Cleopatra or a surprise battle."""
    st, board = g.state, g.board
    loc = sorted(board.spaces)[r.below(len(board.spaces))]
    sea, port = board.is_sea(loc), board.spaces[loc].is_port
    for bid in g.blocks_at(loc):
        if bid != "Cleopatra":
            g.take_off(bid, BlockStatus.POOL)
    near = [n for n, _e in board.neighbors_by_road(loc)] + list(board.seas_of(loc)) + (list(board.ports_of(loc)) if sea else [])
    if not near:
        return None
    attacker = (Side.CAESAR, Side.POMPEY)[r.below(2)]
    main = near[r.below(len(near))]
    entries = []
    for side in (attacker, attacker.enemy):
        fit = sorted(b for b, info in board.blocks.items()
                     if info.side is side and b != "Cleopatra" and (info.is_navis if sea else (port or not info.is_navis)))
        r.shuffle(fit)
        for bid in fit[: 1 + r.below(5)]:
            g.place(bid, loc)
            st.blocks[bid].strength = r.choice(board.blocks[bid].strengths())
            if side is attacker or r.below(3) == 0:
                entries.append(Entry(side, main if side is attacker and r.below(3) else near[r.below(len(near))], bid))
    if not sea and r.below(4) == 0:
        g.place("Cleopatra", loc)
        g.set_side("Cleopatra", (Side.CAESAR, Side.POMPEY)[r.below(2)])
        st.blocks["Cleopatra"].strength = r.choice(board.blocks["Cleopatra"].strengths())
    if g.control(loc, Side.CAESAR) is not Control.CONTESTED:
        return None
    st.contests[loc] = Contest(attacker, entries, {attacker: main} if r.below(2) else {})
    st.surprise = loc if r.below(4) == 0 else None
    st.phase, st.command, st.battle = Phase.BATTLE, None, None
    st.rng = Rng(r.next64())
    return loc


def _random_battles(salt: int, tries: int = 60) -> Iterator[tuple[Game, str, Rng, list]]:  # type: ignore[type-arg]
    """Random battles about to be fought (:func:`_battle_somewhere`) in the games of :func:`_contested`
    1 to 3, ``tries`` in each: the game, the place, the generator that drew them (to draw on) and the
    game's log (of the game before the battle was made up)."""
    for seed in (1, 2, 3):
        g0, log = _contested(seed)
        r = Rng(seed * 31 + salt)
        for _ in range(tries):
            g = g0.copy()
            loc = _battle_somewhere(g, r)
            if loc is not None:
                yield g, loc, r, log


def test_the_odds_fight_is_the_engines_fight(limits: str) -> None:
    """odds._Fight against the rules engine's fight (odds._engine_fight) on random battles, some of
    them taken up in the middle: the same victor, the same blocks after it, the same dice."""
    seen: Counter[str] = Counter()
    for g, loc, r, _log in _random_battles(5):
        for _ in range(r.below(12) if r.below(2) else 0):  # into the battle through the engine
            if g.state.battle is None:
                battle_mod.start_battle(g, loc)
                g.advance()
            bs = g.state.battle
            if bs is None or bs.loc != loc or bs.victor is not None:
                break
            d = g.pending()[0]
            g.apply_legal(d, battle_mod.first_turn_option(g, d.get("blocks")[0]) if d.kind is DecisionKind.BATTLE_TURN
                          else next(iter(g.legal(d))))
        bs = g.state.battle
        if bs is not None and (bs.loc != loc or bs.victor is not None):
            continue
        seen["taken up"] += bs is not None
        ids = g.blocks_at(loc)
        mine, engine = g.copy(), g.copy()
        sample = odds._whole(mine, loc)
        around = {x: (mine.count(x, Side.CAESAR), mine.count(x, Side.POMPEY)) for x in odds.around(g.board, loc)}
        victor, fight = odds._fight(g.board, loc, sample, around)
        assert victor == odds._engine_fight(engine, loc)
        if victor is None:
            continue
        for bid in ids:
            b = engine.state.blocks[bid]
            assert (fight.off.get(bid, BlockStatus.MAP), fight.strength[bid], fight.side[bid], bid in fight.here) == (
                b.status, b.strength, b.side, b.loc == loc)
            seen["retreated"] += b.status is BlockStatus.MAP and b.loc != loc
            seen["killed"] += b.status is BlockStatus.DEAD
        assert sample.rng == engine.state.rng
        seen["fought"] += 1
        seen["surprise"] += g.state.surprise == loc
        seen["reserves"] += bool(fight.contest and any(fight.contest.is_reserve(e.block) for e in fight.contest.entries))
        seen["at sea"] += g.board.is_sea(loc)
        seen["Cleopatra changed sides"] += "Cleopatra" in ids and fight.side["Cleopatra"] is not g.state.blocks["Cleopatra"].side
    assert all(seen[k] >= 3 for k in ("fought", "taken up", "retreated", "killed", "surprise", "reserves", "at sea",
                                      "Cleopatra changed sides")), seen


def test_a_battle_sample_is_the_battle_of_a_whole_sample(limits: str) -> None:
    """Belief.battle_sample draws what Belief.sample draws, and gives that sample's battle: in positions
    before a battle and in the middle of one, with its draws read as word positions (_Cut) or one by one."""
    seen: Counter[str] = Counter()
    for seed in (1, 2, 4, 5):
        g, log = _contested(seed)
        for _ in range(12):
            if g.is_over() or not pending_battles(g):
                break
            for side in Side:
                belief = Belief(observe(g, log, side))
                for loc in pending_battles(g):
                    a, b = Rng(seed), Rng(seed)
                    for _ in range(6):
                        one, whole = belief.battle_sample(a, loc), belief.sample(b)
                        if one is None:  # the enemy's sealed answer: only whole samples
                            assert belief.base["enemy_sealed"]
                            break
                        assert one == odds._whole(whole, loc) and a == b
                        ring = belief.counts(odds.around(g.board, loc))
                        assert ring == {x: (whole.count(x, Side.CAESAR), whole.count(x, Side.POMPEY)) for x in ring}
                        seen["checked"] += 1
                    spot = belief._spots.get(loc)
                    if spot is not None:
                        seen["as word positions" if spot.cut is not None else "one by one"] += 1
                        seen["in a battle"] += spot.battle is not None
            log = play_random(g, Rng(seed + 100), log=log, limit=3)
    for g, loc, _r, log in _random_battles(7, tries=20):  # made-up battles: Cleopatra in some of them
        for side in Side:
            belief = Belief(observe(g, log, side))
            a, b = Rng(3), Rng(3)
            for _ in range(3):
                one = belief.battle_sample(a, loc)
                assert one == odds._whole(belief.sample(b), loc) and a == b
            cut = belief._spots[loc].cut
            seen["the enemy's Cleopatra in the battle"] += cut is not None and cut.cleopatra is not None and "Cleopatra" in one.blocks
    assert seen["checked"] >= 150, seen
    assert all(seen[k] >= 3 for k in ("as word positions", "in a battle", "the enemy's Cleopatra in the battle")), seen


def test_the_placeholders_are_assigned_as_before(limits: str) -> None:
    """Belief._assign (its pools of candidates) draws what filtering each placeholder's candidates gave."""

    def reference(belief: Belief, rng: Rng) -> dict[str, str]:
        for _ in range(200):
            used: set[str] = set()
            out: dict[str, str] = {}
            ok = True
            for bid in belief.must_place:
                spots = [ph for ph, _loc in belief._order if ph not in out and bid in belief.candidates[ph]]
                if not spots:
                    ok = False
                    break
                ph = rng.choice(spots)
                out[ph] = bid
                used.add(bid)
            for ph, _loc in belief._order:
                if not ok:
                    break
                if ph in out:
                    continue
                free = [b for b in belief.candidates[ph] if b not in used]
                if not free:
                    ok = False
                    break
                out[ph] = free[rng.below(len(free))]
                used.add(out[ph])
            if ok:
                return out
        raise AssertionError("no assignment")

    pools = set()
    for seed in (2, 5):
        g, log = _contested(seed)
        for more in (0, 150, 150):
            log = play_random(g, Rng(seed + more), log=log, limit=more)
            for side in Side:
                belief = Belief(observe(g, log, side))
                pools.add(len(belief._pools))
                a, b = Rng(seed), Rng(seed)
                for _ in range(30):
                    assert belief._assign(a) == reference(belief, b) and a == b
    assert max(pools) > 1  # placeholders of more than one kind of place (Navis at sea)


def test_a_whole_sample_gives_the_same_odds(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the battle's part of a sample cannot be drawn alone (the enemy's sealed answer), the odds
    fight the battle of the whole sample: the same odds."""
    g, log = _contested(3)
    loc = pending_battles(g)[0]
    want = [battle_odds(g, log, side, loc, 40) for side in Side]
    monkeypatch.setattr(Belief, "battle_sample", lambda self, rng, loc: None)
    assert [battle_odds(g, log, side, loc, 40) for side in Side] == want


def test_a_victors_regroup_answer_is_kept_for_its_case(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fights of one battle keep their answers to "has the victor a regroup to make?" by what the
    answer depends on (the victor, which kinds of block he has, where blocks retreated to): every fight
    ends as it does when the engine's regroups_from is asked about all of the victor's blocks."""

    def engines(fight: odds._Fight, bs: BattleState, victor: Side) -> bool:
        mine = sorted(b for b in fight.here if fight.side[b] is victor)
        found = next(battle_mod.regroups_from(fight.board, bs, fight.control, mine, victor), None) is not None
        answers[found] += 1
        return found

    answers: Counter[bool] = Counter()
    fights = kept_answers = 0
    for g, loc, r, _log in _random_battles(9):
        sample = odds._whole(g, loc)
        around = {x: (g.count(x, Side.CAESAR), g.count(x, Side.POMPEY)) for x in odds.around(g.board, loc)}
        samples = [replace(sample, rng=Rng(r.next64())) for _ in range(12)]
        kept: dict[tuple[object, ...], bool] = {}
        got = [odds._fight(g.board, loc, one, around, None, kept)[0] for one in samples]
        with monkeypatch.context() as m:
            m.setattr(odds._Fight, "can_regroup", engines)
            want = [odds._fight(g.board, loc, replace(one, rng=Rng(one.rng.seed)), around)[0] for one in samples]
        assert got == want
        fights += len(samples)
        kept_answers += len(kept)
    assert answers[True] > 100 and answers[False] > 10  # victors with and without a regroup
    assert kept_answers < fights / 4  # the answers are asked for once and kept


def test_draws_that_depend_on_what_is_drawn_are_made_one_by_one() -> None:
    """A battle sample reads its draws as word positions (_Cut) only when how many draws it makes cannot
    depend on what they draw: not when a placeholder's pool of candidates may run out (then _assign
    draws them all again), nor with a defector to seat that may find no seat, nor with the full-strength draw."""
    g, log = _contested(2)
    belief = Belief(observe(g, log, Side.CAESAR))
    assert belief._cut(set(), [], False) is not None  # a real position's pools never run out
    first, last = belief._order[0][0], belief._order[-1][0]
    shared = belief._pools[belief._pool_of[first]][0]  # a block the first placeholder may draw...
    tight = copy.copy(belief)
    tight._pools = [*belief._pools, (shared,)]  # ... and the only candidate of the last one
    tight._pool_of = {**belief._pool_of, last: len(tight._pools) - 1}
    assert tight._cut(set(), [], False) is None
    seatless = copy.copy(belief)  # a defector to seat with no placeholder he fits
    seatless.must_place = [belief.ids[0]]
    seatless.candidates = {ph: [b for b in c if b != belief.ids[0]] for ph, c in belief.candidates.items()}
    assert seatless._cut(set(), [], False) is None
    assert Belief(observe(g, log, Side.CAESAR), full=0.5)._cut(set(), [], False) is None


def test_defectors_are_seated_as_assign_seats_them() -> None:
    """With defectors to seat first (blocks of the side that went over to the enemy), a battle sample read
    as word positions seats them where Belief.sample seats them, and reads the strengths after them."""
    seen = 0
    for seed in (2, 3):
        g, log = _contested(seed)
        for side in Side:
            belief = Belief(observe(g, log, side))
            for k in (1, 2):
                seating = copy.copy(belief)
                seating._spots = {}
                seating.must_place = [bid for bid in belief.ids if any(bid in c for c in belief.candidates.values())][:k]
                for loc in pending_battles(g):
                    a, b = Rng(seed + k), Rng(seed + k)
                    for _ in range(10):
                        one = seating.battle_sample(a, loc)
                        assert one == odds._whole(seating.sample(b), loc) and a == b
                    seen += seating._spots[loc].cut is not None
    assert seen >= 4


def test_a_boards_tables_are_made_once() -> None:
    board = new_game(1).board
    assert odds._Tables.of(board) is odds._Tables.of(board) and odds._Tables.of(board) == odds._Tables.made(board)
