"""A side's view of the game: what it holds, and that the enemy part depends on public facts only."""

from __future__ import annotations

import dataclasses
import random

import pytest

from conftest import play_random
from pbem.core.events import Event
from pbem.core.rng import Rng
from pbem.games.caesar.rules.board import BlockType, Side, default_board
from pbem.games.caesar.rules.choices import Audience
from pbem.games.caesar.rules.game import Game, new_game
from pbem.games.caesar.rules.playout import random_decisions
from pbem.games.caesar.view.views import BlockView, Forces, NextStep, View, build_view, roman


def play(seed: int, decisions: int) -> tuple[Game, list[Event]]:
    """A game after ``decisions`` random legal decisions, and its whole event log."""
    g = new_game(seed)
    log = list(g.events) + random_decisions(g, Rng(seed * 7919 + 1), decisions)
    return g, log


def play_until(seed: int, stop) -> tuple[Game, list[Event]]:  # type: ignore[no-untyped-def]
    """Play until ``stop(game, log)`` holds (or the game ends)."""
    g = new_game(seed)
    return g, play_random(g, Rng(seed * 7919 + 1), log=list(g.events), until=stop)


def strings(obj: object) -> list[str]:
    """Every string anywhere in a view tree."""
    out: list[str] = []
    if isinstance(obj, str):
        out.append(obj)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            out += strings(getattr(obj, f.name))
    elif isinstance(obj, (tuple, list)):
        for x in obj:
            out += strings(x)
    return out


def forces(view: View, loc: str, side: Side) -> Forces | None:
    for lv in view.locations:
        if lv.name == loc:
            for f in lv.forces:
                if f.side == side.value:
                    return f
    return None


# ---- the start of the game -----------------------------------------------------------


def test_start_view_shows_own_blocks_and_enemy_counts() -> None:
    g, log = play(1, 0)
    board = default_board()
    for viewer in Side:
        v = build_view(g, log, viewer)
        assert v.viewer == viewer.value and not v.moderator
        assert (v.year, v.turn, v.phase) == (705, 1, "discard")
        for loc in sorted({b.loc for b in g.state.blocks.values() if b.loc}):
            own = [b for b in g.blocks_at(loc, viewer) if b != "Cleopatra"]
            enemy = [b for b in g.blocks_at(loc, viewer.enemy) if b != "Cleopatra"]
            f_own, f_enemy = forces(v, loc, viewer), forces(v, loc, viewer.enemy)
            if own:
                assert f_own is not None and f_own.own and f_own.count == len(own)
                assert sorted(b.name for b in f_own.blocks) == sorted(board.blocks[b].name for b in own)
                for bv in f_own.blocks:
                    bid = f"{viewer.value}:{bv.name}"
                    assert bv.strength == g.state.blocks[bid].strength and bv.roman == roman(bv.strength)
            else:
                assert f_own is None
            if enemy:
                assert f_enemy is not None and not f_enemy.own
                assert f_enemy.count == len(enemy) and f_enemy.blocks == ()
                assert f_enemy.navis == board.is_sea(loc)
            else:
                assert f_enemy is None


def test_hands_own_cards_enemy_size_only() -> None:
    g, log = play(2, 0)
    for viewer in Side:
        v = build_view(g, log, viewer)
        mine, theirs = v.hands
        assert mine.side == viewer.value and mine.known and mine.size == 6
        assert sorted(mine.cards) == sorted(g.state.hands[viewer]) and v.hand == mine.cards
        assert theirs.side == viewer.enemy.value and not theirs.known
        assert theirs.size == 6 and theirs.cards == ()
    mod = build_view(g, log, None)
    assert mod.moderator and [h.cards for h in mod.hands] == [tuple(g.state.hands[s]) for s in Side]


def test_played_cards_come_from_the_latest_reveal() -> None:
    g, log = play_until(3, lambda g, log: sum(e.kind == "reveal" for e in log) >= 2)
    reveal = [e for e in log if e.kind == "reveal"][-1]
    v = build_view(g, log, Side.POMPEY)
    assert v.played is not None
    assert (v.played.year, v.played.turn) == (reveal.data["year"], reveal.data["turn"])
    assert {p.side: p.card for p in v.played.cards} == reveal.data["played"]


# ---- the enemy part depends on public facts only ------------------------------------------


def _scramble_enemy(g: Game, viewer: Side, seed: int) -> Game:
    """A copy of ``g`` whose hidden enemy facts differ but whose public facts do not.

    Enemy blocks trade places with other enemy blocks of the same kind of place
    (land for land, Navis for Navis), so the count per location stays; every
    enemy strength changes to another legal value. Cleopatra stays put.
    """
    h = g.copy()
    rnd = random.Random(seed)
    enemy = [b for b in h.state.on_map(viewer.enemy) if b != "Cleopatra"]
    land = [b for b in enemy if not h.info(b).is_navis]
    navis = [b for b in enemy if h.info(b).is_navis]
    for group in (land, navis):
        locs = [h.state.blocks[b].loc for b in group]
        rnd.shuffle(locs)
        for b, loc in zip(group, locs):
            h.state.blocks[b].loc = loc
    for b in enemy:
        h.state.blocks[b].strength = rnd.choice(h.info(b).strengths())
    h.reindex()
    return h


@pytest.mark.parametrize("seed", [11, 12, 13, 14])
def test_enemy_identities_and_strengths_do_not_change_the_view(seed: int) -> None:
    """Noninterference: permuting hidden enemy blocks and their strengths leaves the view as it was."""
    g, log = play(seed, 40 + 20 * seed % 90)
    for viewer in Side:
        before = build_view(g, log, viewer)
        after = build_view(_scramble_enemy(g, viewer, seed), log, viewer)
        assert after == before
    # and the moderator does see the difference
    assert build_view(_scramble_enemy(g, Side.CAESAR, seed), log, None) != build_view(g, log, None)


def test_vp_are_computed_from_public_facts_and_match_the_engine() -> None:
    for seed in range(3):
        g = new_game(seed)

        def check(g: Game, log: list[Event], n: int) -> None:
            if n % 25 == 0:
                for viewer in (Side.CAESAR, Side.POMPEY, None):
                    v = build_view(g, log, viewer)
                    assert {s.side: s.vp for s in v.scores} == {s.value: g.vp(s) for s in Side}

        play_random(g, Rng(seed), log=list(g.events), first=True, each=check)


def test_no_player_view_holds_an_enemy_block_view() -> None:
    g, log = play(21, 200)
    for viewer in Side:
        v = build_view(g, log, viewer)
        for lv in v.locations:
            for f in lv.forces:
                if f.side != viewer.value:
                    assert f.blocks == () and not f.own
            if lv.cleopatra is not None and lv.cleopatra.side != viewer.value:
                assert lv.cleopatra.strength == 0 and lv.cleopatra.roman == ""


def test_cleopatra_is_visible_to_both_with_strength_for_her_owner_only() -> None:
    g, log = play(4, 0)
    loc = g.state.blocks["Cleopatra"].loc
    owner = g.state.blocks["Cleopatra"].side
    for viewer in Side:
        v = build_view(g, log, viewer)
        [lv] = [x for x in v.locations if x.name == loc]
        assert lv.cleopatra is not None and lv.cleopatra.side == owner.value
        if viewer is owner:
            assert lv.cleopatra.strength == g.state.blocks["Cleopatra"].strength and lv.cleopatra.own
        else:
            assert lv.cleopatra.strength == 0 and not lv.cleopatra.own


# ---- the moderator ---------------------------------------------------------------


def test_moderator_view_shows_every_block() -> None:
    g, log = play(5, 150)
    v = build_view(g, log, None)
    assert v.viewer == "moderator" and v.last_seen == ()
    shown: dict[str, list[BlockView]] = {}
    for lv in v.locations:
        for f in lv.forces:
            assert f.known and not f.own
            shown.setdefault(lv.name, []).extend(f.blocks)
    for bid in g.state.on_map():
        if bid == "Cleopatra":
            continue
        b = g.state.blocks[bid]
        names = {(bv.name.split(" ", 1)[-1] if bv.name.startswith(("Caesar ", "Pompey ")) else bv.name, bv.strength)
                 for bv in shown[b.loc or ""]}
        assert (g.info(bid).name, b.strength) in names


def test_moderator_sees_the_owners_version_of_split_events_only() -> None:
    g, log = play(6, 60)
    v = build_view(g, log, None)
    text = "\n".join(e.text for e in v.happened if e.kind == "line")
    assert "a block moves" not in text and "a new block" not in text
    assert any("levies" in e.text for e in v.happened)


# ---- what happened ---------------------------------------------------------------


def _ev(kind: str, audience: Audience, text: str, **data: object) -> Event:
    return Event(kind, audience, text, dict(data))


def test_consecutive_moves_of_one_path_are_collapsed() -> None:
    g, log = play(7, 0)
    since = len(log)
    c, p = Audience.CAESAR, Audience.POMPEY
    for b in ("Caesar:Legio 8", "Caesar:Legio 12", "Caesar:Antonius"):
        log.append(_ev("move", c, "x", side="Caesar", block=b, path=["Genua", "Roma"]))
        log.append(_ev("move", p, "y", side="Caesar", path=["Genua", "Roma"], navis=False))
    log.append(_ev("move", c, "x", side="Caesar", block="Caesar:Legio 13", path=["Ravenna", "Roma"]))
    log.append(_ev("move", p, "y", side="Caesar", path=["Ravenna", "Roma"], navis=False))
    log.append(_ev("levy", p, "Pompey levies Legio 1 at Roma (I)", side="Pompey", block="Pompey:Legio 1", loc="Roma", strength=1))
    log.append(_ev("levy", c, "Pompey levies a new block at Roma", side="Pompey", loc="Roma"))
    log.append(_ev("levy", p, "Pompey levies Legio 2 at Roma (I)", side="Pompey", block="Pompey:Legio 2", loc="Roma", strength=1))
    log.append(_ev("levy", c, "Pompey levies a new block at Roma", side="Pompey", loc="Roma"))
    pompey = [e.text for e in build_view(g, log, Side.POMPEY, since=since).happened]
    caesar = [e.text for e in build_view(g, log, Side.CAESAR, since=since).happened]
    mod = [e.text for e in build_view(g, log, None, since=since).happened]
    assert pompey == [
        "Caesar: 3 blocks move Genua -> Roma",
        "Caesar: a block moves Ravenna -> Roma",
        "Pompey levies Legio 1 (I), Legio 2 (I) at Roma",
    ]
    assert caesar == [
        "Legio 8, Legio 12, Antonius: Genua -> Roma",
        "Legio 13: Ravenna -> Roma",
        "Pompey levies 2 new blocks at Roma",
    ]
    assert mod == [
        "Caesar Legio 8, Legio 12, Antonius: Genua -> Roma",
        "Caesar Legio 13: Ravenna -> Roma",
        "Pompey levies Legio 1 (I), Legio 2 (I) at Roma",
    ]


def test_events_are_filtered_by_audience_and_since() -> None:
    g, log = play(8, 0)
    log.append(_ev("note", Audience.POMPEY, "secret for Pompey"))
    log.append(_ev("note", Audience.CAESAR, "secret for Caesar"))
    log.append(_ev("default", Audience.CAESAR, "Caesar: no moves ordered; default: no moves"))
    log.append(_ev("note", Audience.MODERATOR, "for the moderator"))
    c = build_view(g, log, Side.CAESAR)
    p = build_view(g, log, Side.POMPEY)
    m = build_view(g, log, None)
    assert "secret for Caesar" in strings(c) and "secret for Pompey" not in strings(c)
    assert "secret for Pompey" in strings(p) and "secret for Caesar" not in strings(p)
    assert "for the moderator" in strings(m) and "for the moderator" not in strings(c) + strings(p)
    assert c.defaults == ("Caesar: no moves ordered; default: no moves",) and p.defaults == ()
    later = build_view(g, log, Side.CAESAR, since=len(log))
    assert later.happened == () and later.defaults == ()


def test_battles_are_grouped_round_by_round_with_every_die() -> None:
    g, log = play_until(3, lambda g, log: any(e.kind == "battle-end" for e in log))
    start = max(i for i, e in enumerate(log) if e.kind == "battle") - 1
    for viewer in (Side.CAESAR, Side.POMPEY, None):
        v = build_view(g, log, viewer, since=start)
        battles = [e.battle for e in v.happened if e.kind == "battle"]
        assert battles and battles[0] is not None
        b = battles[-1]
        assert not b.continued and b.opening and b.rounds[0].number == 1
        assert [r.number for r in b.rounds] == list(range(1, len(b.rounds) + 1))
        fires = [e for e in log[start:] if e.kind == "fire" and e.data["loc"] == b.location]
        lines = [ln for r in b.rounds for ln in r.lines if ln.kind == "fire"]
        assert [ln.dice for ln in lines] == [tuple(e.data["dice"]) for e in fires]
        assert [ln.hits for ln in lines] == [e.data["hits"] for e in fires]
        assert any("wins" in ln.text for ln in b.outcome)


def test_a_report_starting_mid_battle_continues_it() -> None:
    g, log = play_until(3, lambda g, log: any(e.kind == "battle-end" for e in log))
    i = max(i for i, e in enumerate(log) if e.kind == "round" and e.data["round"] == 2)
    v = build_view(g, log, Side.CAESAR, since=i + 1)
    b = [e.battle for e in v.happened if e.kind == "battle"][0]
    assert b is not None and b.continued and b.rounds[0].number == 2 and b.attacker


def test_last_seen_keeps_the_latest_strength_and_eliminations() -> None:
    g, log = play(9, 0)
    a = Audience.ALL
    rev = [
        {"block": "Pompey:Legio 37", "side": "Pompey", "name": "Legio 37", "strength": 3},
        {"block": "Pompey:Scipio", "side": "Pompey", "name": "Scipio", "strength": 2},
        {"block": "Caesar:Legio 8", "side": "Caesar", "name": "Legio 8", "strength": 3},
    ]
    log.append(_ev("battle", a, "Battle of Roma", loc="Roma", attacker="Caesar", revealed=rev, reserves={}, surprise=False))
    log.append(_ev("round", a, "Roma, Round 1", loc="Roma", round=1))
    log.append(_ev("fire", a, "Caesar Legio 8 III (C3) fires: 1 2 6 = 2 hit(s)", loc="Roma", block="Caesar:Legio 8",
                   side="Caesar", dice=[1, 2, 6], hits=2, combat="C3"))
    log.append(_ev("hit", a, "Pompey Legio 37 takes a hit: now II", loc="Roma", block="Pompey:Legio 37", strength=2))
    log.append(_ev("killed", a, "Pompey's leader Scipio is killed", block="Pompey:Scipio", name="Scipio", side="Pompey", loc="Roma"))
    log.append(_ev("retreat", a, "Pompey Legio 37 II retreats to Neapolis", loc="Roma", block="Pompey:Legio 37", to="Neapolis", by_sea=False))
    v = build_view(g, log, Side.CAESAR)
    seen = {s.name: s for s in v.last_seen}
    assert set(seen) == {"Legio 37", "Scipio"}
    assert (seen["Legio 37"].strength, seen["Legio 37"].roman, seen["Legio 37"].location) == (2, "II", "Neapolis")
    assert seen["Legio 37"].status == "seen" and (seen["Legio 37"].year, seen["Legio 37"].turn) == (705, 1)
    assert seen["Scipio"].status == "killed"
    pv = build_view(g, log, Side.POMPEY)
    assert [(s.name, s.strength) for s in pv.last_seen] == [("Legio 8", 3)]
    log.append(_ev("eliminated", a, "Pompey's Legio 37 is eliminated", block="Pompey:Legio 37", name="Legio 37", side="Pompey", loc="Neapolis"))
    seen = {s.name: s for s in build_view(g, log, Side.CAESAR).last_seen}
    assert seen["Legio 37"].status == "eliminated"


def test_last_seen_drops_a_block_that_defected_to_the_viewer() -> None:
    g, log = play(10, 0)
    a = Audience.ALL
    log.append(_ev("jupiter", a, "Jupiter: ...", side="Caesar", loc="Utica", block="Pompey:Legio 39", strength=3))
    log.append(_ev("defection", a, "Legio 39 defects to Caesar", block="Pompey:Legio 39", side="Caesar", to="Tacape"))
    assert build_view(g, log, Side.CAESAR).last_seen == ()
    [s] = build_view(g, log, Side.POMPEY).last_seen
    assert (s.name, s.side, s.strength, s.location) == ("Legio 39", "Caesar", 3, "Tacape")


def test_next_step_and_who_is_awaited() -> None:
    g, log = play(1, 0)
    ns = NextStep(3, "year start: discard and play", "2030-01-01", ("Caesar",), (("Discard", "discard 1/2"),))
    assert build_view(g, log, Side.CAESAR, next_step=ns).awaited
    assert not build_view(g, log, Side.POMPEY, next_step=ns).awaited
    assert build_view(g, log, Side.POMPEY, next_step=ns).next_step == ns
    assert not build_view(g, log, Side.POMPEY).awaited


def test_view_is_plain_frozen_values() -> None:
    g, log = play(12, 120)
    v = build_view(g, log, Side.POMPEY, next_step=NextStep(1, "t"))

    def walk(obj: object) -> None:
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            assert type(obj).__dataclass_params__.frozen  # type: ignore[attr-defined]
            for f in dataclasses.fields(obj):
                walk(getattr(obj, f.name))
        elif isinstance(obj, tuple):
            for x in obj:
                walk(x)
        else:
            assert obj is None or isinstance(obj, (str, int, bool)), type(obj)

    walk(v)
    assert hash(v.locations) is not None  # immutable all the way down


def test_leader_kind_and_order() -> None:
    g, log = play(1, 0)
    v = build_view(g, log, Side.CAESAR)
    for lv in v.locations:
        for f in lv.forces:
            kinds = [b.kind for b in f.blocks]
            if BlockType.LEADER.value in kinds:
                assert kinds[0] == BlockType.LEADER.value


def test_eliminated_since_last_report() -> None:
    g, log = play_until(3, lambda g, log: any(e.kind in ("eliminated", "killed") for e in log))
    i = max(i for i, e in enumerate(log) if e.kind in ("eliminated", "killed"))
    v = build_view(g, log, Side.CAESAR, since=i)
    assert log[i].text in v.eliminated
    assert build_view(g, log, Side.CAESAR, since=i + 1).eliminated == ()


@pytest.mark.parametrize("seed", [3, 8])
def test_a_sides_visible_events_are_exactly_those_the_core_lets_it_see(seed: int) -> None:
    """visible_events filters a whole log by pbem.core.events.audiences_seen_by; it must keep exactly
    the events Event.visible_to allows (the one rule of who sees what), in order, for every viewer."""
    from pbem.games.caesar.view.history import visible_events

    log = play_random(new_game(seed=seed), Rng(seed), limit=400)
    assert {e.audience for e in log} >= {"all", "Caesar", "Pompey"}  # the log has something to hide
    for side in Side:
        assert visible_events(log, side) == [(i, e) for i, e in enumerate(log) if e.visible_to(side.value)]
    every = visible_events(log, None)
    assert {i for i, _ in every} <= set(range(len(log))) and len(every) <= len(log)
    assert all(e.visible_to(None) for _, e in every)


@pytest.mark.parametrize("seed", [4, 9])
def test_the_counts_of_a_previous_position_are_the_counts_of_its_view(seed: int) -> None:
    """The scores of the position of a side's last report come from its counts alone (_occupancy),
    which are the counts its view of that position holds; the board's remembered facts are its own."""
    from pbem.games.caesar.view.views import _facts, _locations, _occupancy

    g = new_game(seed)
    rng = Rng(seed)
    for _ in range(8):
        random_decisions(g, rng, 30)
        for viewer in (Side.CAESAR, Side.POMPEY, None):
            assert _occupancy(g, viewer) == _locations(g, viewer)[1]
    facts = _facts(g.board)
    assert _facts(g.board) is facts and facts.board is g.board
    assert [loc for loc, _, _ in facts.spaces] == sorted(g.board.spaces)
