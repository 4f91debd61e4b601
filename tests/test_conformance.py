"""Conformance suite: every case in tests/conformance/*.json, run by one parametrized test.

A case is data::

    {"id": "pinning-example", "rule": "6.13", "quote": "<the rule text it checks>",
     "setup": {<compact scenario spec, see pbem.games.caesar.rules.scenario>},
     "steps": [{"side": "Caesar", "choice": {"type": "Move", "block": "L8", "path": ["Genua", "Rome"]},
                "expect": "ok"},
               {"side": "Pompey", "choice": {...}, "expect": {"illegal": "pin"}},
               {"auto": "pass", "until_round": 2},
               {"auto": "end", "until": "play"}],
     "check": {<assertions on the final position, see CHECKS below>}}

Steps may also be written in the order language, as players send them (like Diplomacy's
DATC): ``{"orders": {"Caesar": ["move Genua -> Roma: Legio 8"], "Pompey": []}}`` submits each
side's lines, in that order, to a play-by-email :class:`~pbem.games.caesar.steps.session.Session` over the
case's game (its ``"settings"``, e.g. ``{"battles": "interactive"}``, are the case's own key).
``expect`` then checks the whole submission: ``{"illegal": text}`` wants it rejected with
``text`` in one of its errors and nothing changed. Choice steps and order steps can be mixed.

Names in choices and checks are written as players write them: blocks by their
owner's short form (``"L8"``; in checks ``"Caesar:L8"``), locations by any alias.
``expect`` is ``"ok"`` (the default) or ``{"illegal": text}``, where ``text`` must occur in
the error message (which ends with the rule number). A step may carry its own
``check``, run right after it. ``auto`` steps answer routine decisions the same way
each time: ``"pass"`` passes battle turns until the battle reaches ``until_round``
(or ends); ``"end"`` answers with the End/None choice until a decision of kind
``until`` is pending.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pbem.core.orders import SubmissionRejected
from pbem.errors import IllegalChoiceError
from pbem.games.caesar.rules import battle, winter
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.choices import (
    Action,
    BattleAction,
    Choice,
    Decision,
    DecisionKind,
    EndDisband,
    EndLevies,
    EndMoves,
    EndRegroup,
    Move,
    NoEvent,
    SeaMove,
    Surprise,
    choice_from_json,
    choice_to_json,
)
from pbem.games.caesar.rules.game import Game
from pbem.games.caesar.rules.scenario import build_game
from pbem.games.caesar.steps.session import Session, Settings

CASES_DIR = Path(__file__).parent / "conformance"
CASE_KEYS = {"id", "rule", "quote", "setup", "settings", "steps", "check", "note"}
_BLOCK_FIELDS = {"block"}
_SPACE_FIELDS = {"location", "origin", "city", "to", "target", "port"}


def _load_cases() -> list[Any]:
    out = []
    for path in sorted(CASES_DIR.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            out.append(pytest.param(case, id=f"{path.stem}:{case.get('id', '?')}"))
    return out


CASES = _load_cases()


# ---- names ----------------------------------------------------------------------


def bid_of(g: Game, text: str, side: Side | None = None) -> str:
    """``"Caesar:L8"`` / ``"Caesar:Legio 8"`` / ``"Cleopatra"``; bare ``"L8"`` with ``side``."""
    if text in g.state.blocks:
        return text
    if ":" in text:
        prefix, name = text.split(":", 1)
        s = Side.parse(prefix)
        return g.board.resolve_block(s, name, cleopatra_side=s)
    if side is None:
        raise AssertionError(f"block {text!r} needs a side prefix (\"Caesar:{text}\")")
    return g.resolve_own_block(side, text)


def space_of(g: Game, text: str) -> str:
    return g.board.resolve_space(text)


def normalize_choice(g: Game, side: Side, data: dict[str, Any]) -> Choice:
    d = dict(data)
    for k, v in d.items():
        if k in _BLOCK_FIELDS and isinstance(v, str):
            d[k] = bid_of(g, v, side)
        elif k in _SPACE_FIELDS and isinstance(v, str):
            d[k] = space_of(g, v)
        elif k == "path":
            d[k] = [space_of(g, x) for x in v]
        elif k == "card":
            d[k] = g.board.card(v).name
    return choice_from_json(d)


# ---- steps ------------------------------------------------------------------------

END_CHOICES: dict[DecisionKind, Choice] = {
    DecisionKind.MOVES: EndMoves(),
    DecisionKind.LEVIES: EndLevies(),
    DecisionKind.REGROUP: EndRegroup(),
    DecisionKind.WINTER_DISBAND: EndDisband(),
    DecisionKind.SURPRISE: Surprise(None),
    DecisionKind.EVENT_TARGET: NoEvent(),
}


def run_auto(g: Game, step: dict[str, Any], events: list[Any]) -> None:
    mode = step["auto"]
    for _ in range(500):
        pend = g.pending()
        if mode == "pass":
            bs = g.state.battle
            if bs is None or bs.round >= step.get("until_round", 99) or not pend:
                return
            d = pend[0]
            if d.kind is not DecisionKind.BATTLE_TURN:
                return
            blk = d.get("blocks")[0]
            events.extend(g.apply(d.side, BattleAction(blk, Action.PASS)))
        elif mode == "end":
            kinds = [d.kind.value for d in pend]
            if step["until"] in kinds or (step["until"] == "over" and g.is_over()):
                return
            assert pend, f"auto end: nothing pending before reaching {step['until']!r}"
            d = pend[0]
            assert d.kind in END_CHOICES, f"auto end: no end choice for a {d.kind.value} decision"
            events.extend(g.apply(d.side, END_CHOICES[d.kind]))
        else:
            raise AssertionError(f"unknown auto step {mode!r}")
    raise AssertionError(f"auto step {step} did not finish")


def run_orders(session: Session, i: int, step: dict[str, Any], events: list[Any]) -> None:
    expect = step.get("expect", "ok")
    for side_name, lines in step["orders"].items():
        side = Side.parse(side_name)
        text = "\n".join(lines)
        if expect == "ok":
            try:
                events.extend(session.submit(side, text))
            except SubmissionRejected as exc:
                raise AssertionError(f"step {i}: {side}'s orders were refused: {exc}") from exc
            continue
        before = json.dumps(session.to_json(), sort_keys=True)
        with pytest.raises(SubmissionRejected) as info:
            session.submit(side, text)
        got = str(info.value)
        assert expect["illegal"].lower() in got.lower(), f"step {i}: refused, but for another reason: {got!r} (wanted {expect['illegal']!r})"
        assert json.dumps(session.to_json(), sort_keys=True) == before, f"step {i}: refused orders changed the game"


def run_step(g: Game, i: int, step: dict[str, Any], events: list[Any], session: Session | None = None) -> None:
    if "auto" in step:
        run_auto(g, step, events)
    elif "orders" in step:
        run_orders(session or Session(g), i, step, events)
    else:
        side = Side.parse(step["side"])
        choice = normalize_choice(g, side, step["choice"])
        expect = step.get("expect", "ok")
        before = json.dumps(g.to_json(), sort_keys=True)
        if expect == "ok":
            try:
                events.extend(g.apply(side, choice))
            except IllegalChoiceError as exc:
                raise AssertionError(f"step {i}: {side} {choice!r} was refused: {exc}") from exc
        else:
            want = expect["illegal"]
            with pytest.raises(IllegalChoiceError) as info:
                g.apply(side, choice)
            text = str(info.value)
            assert want.lower() in text.lower(), f"step {i}: refused, but for another reason: {text!r} (wanted {want!r})"
            assert json.dumps(g.to_json(), sort_keys=True) == before, f"step {i}: a refused choice changed the position"
    if "check" in step:
        run_checks(g, step["check"], events, where=f"after step {i}")


# ---- checks -----------------------------------------------------------------------


def _decision_of(g: Game, side: Side, kind: DecisionKind | None = None) -> Decision:
    for d in g.pending():
        if d.side is side and (kind is None or d.kind is kind):
            return d
    raise AssertionError(f"no pending {kind.value if kind else ''} decision for {side}; pending: {g.pending()}")


def _moves_of(g: Game, bid: str, cls: type) -> list[tuple[str, ...]]:
    side = g.state.blocks[bid].side
    d = _decision_of(g, side, DecisionKind.MOVES)
    return sorted(ch.path for ch in g.legal(d) if isinstance(ch, (Move, SeaMove)) and type(ch) is cls and ch.block == bid)


def _paths(g: Game, paths: list[list[str]]) -> list[tuple[str, ...]]:
    return sorted(tuple(space_of(g, x) for x in p) for p in paths)


def _spaces(g: Game, names: list[str]) -> list[str]:
    return sorted(space_of(g, x) for x in names)


def _check_legal(g: Game, spec: dict[str, Any]) -> None:
    pend = g.pending()
    assert pend, "legal: nothing is pending"
    d = _decision_of(g, Side.parse(spec["side"])) if "side" in spec else pend[0]
    legal = list(g.legal(d))
    want = {k: [normalize_choice(g, d.side, c) for c in spec.get(k, [])] for k in ("include", "exclude", "exact")}
    for c in want["include"]:
        assert c in legal, f"legal: {c!r} is not legal; legal: {legal}"
    for c in want["exclude"]:
        assert c not in legal, f"legal: {c!r} is legal and should not be"
    if "exact" in spec:
        key = lambda c: json.dumps(choice_to_json(c), sort_keys=True)  # noqa: E731
        assert sorted(map(key, legal)) == sorted(map(key, want["exact"])), f"legal: {legal} != {want['exact']}"


def _check_next(g: Game, bid: str, spec: dict[str, Any]) -> None:
    after = tuple(space_of(g, x) for x in spec["after"])
    nxt = sorted(
        {p[len(after)] for p in _moves_of(g, bid, Move) if len(p) > len(after) and p[: len(after)] == after}
    )
    if "exact" in spec:
        assert nxt == _spaces(g, spec["exact"]), f"{bid} after {after}: next {nxt}"
    for x in spec.get("include", []):
        assert space_of(g, x) in nxt, f"{bid} after {after}: {x} not among {nxt}"
    for x in spec.get("exclude", []):
        assert space_of(g, x) not in nxt, f"{bid} after {after}: {x} should not be among {nxt}"


def _event_values(events: list[Any], key: str) -> list[Any]:
    kind, field = key.split(".", 1)
    out = []
    for e in events:
        if e.kind != kind or field not in e.data:
            continue
        # an owner's and an opponent's version of a hidden event: keep the owner's
        if e.audience != "all" and e.audience != e.data.get("side"):
            continue
        out.append(e.data[field])
    return out


def run_checks(g: Game, check: dict[str, Any], events: list[Any], where: str = "at the end") -> None:
    st = g.state
    got: Any
    for key, spec in check.items():
        ctx = f"{where}, check {key!r}"
        if key == "at":
            for loc, ids in spec.items():
                got = g.blocks_at(space_of(g, loc))
                assert got == sorted(bid_of(g, b) for b in ids), f"{ctx}: {loc} holds {got}"
        elif key == "count":
            for loc, per in spec.items():
                for s, n in per.items():
                    got = g.count(space_of(g, loc), Side.parse(s))
                    assert got == n, f"{ctx}: {s} has {got} blocks in {loc}, expected {n}"
        elif key == "strength":
            for b, n in spec.items():
                got = st.blocks[bid_of(g, b)].strength
                assert got == n, f"{ctx}: {b} is at {got}, expected {n}"
        elif key == "status":
            for b, s in spec.items():
                got = st.blocks[bid_of(g, b)].status.value
                assert got == s, f"{ctx}: {b} is {got}, expected {s}"
        elif key == "side_of":
            for b, s in spec.items():
                got = st.blocks[bid_of(g, b)].side.value
                assert got == s, f"{ctx}: {b} belongs to {got}, expected {s}"
        elif key == "legal_paths":
            for b, paths in spec.items():
                bid = bid_of(g, b)
                assert _moves_of(g, bid, Move) == _paths(g, paths), f"{ctx}: {b}: {_moves_of(g, bid, Move)}"
        elif key == "legal_sea_paths":
            for b, paths in spec.items():
                bid = bid_of(g, b)
                assert _moves_of(g, bid, SeaMove) == _paths(g, paths), f"{ctx}: {b}: {_moves_of(g, bid, SeaMove)}"
        elif key == "legal_destinations":
            for b, dests in spec.items():
                bid = bid_of(g, b)
                got = sorted({p[-1] for p in _moves_of(g, bid, Move)})
                assert got == _spaces(g, dests), f"{ctx}: {b} can reach {got}"
        elif key == "legal_next":
            for b, sub in spec.items():
                _check_next(g, bid_of(g, b), sub)
        elif key == "legal":
            _check_legal(g, spec)
        elif key == "retreats":
            assert st.battle is not None, f"{ctx}: no battle in progress"
            for b, dests in spec.items():
                opts = battle.retreat_options(g, bid_of(g, b))
                got = sorted(("by sea: " if o.by_sea else "") + (o.to or "") for o in opts)
                wanted = sorted(
                    ("by sea: " + space_of(g, x[len("by sea: "):])) if x.startswith("by sea: ") else space_of(g, x)
                    for x in dests
                )
                assert got == wanted, f"{ctx}: {b} can retreat to {got}"
        elif key == "regroups":
            bs = st.battle
            assert bs is not None and bs.victor is not None, f"{ctx}: no regroup in progress"
            regroups = battle.regroup_options(g, bs.victor)
            for b, dests in spec.items():
                bid = bid_of(g, b)
                got = sorted(o.to for o in regroups if o.block == bid)
                assert got == _spaces(g, dests), f"{ctx}: {b} can regroup to {got}"
        elif key == "battle":
            bs = st.battle
            if spec is None:
                assert bs is None, f"{ctx}: a battle at {bs.loc if bs else ''} is in progress"
                continue
            assert bs is not None, f"{ctx}: no battle in progress"
            for k, v in spec.items():
                if k == "reserves":
                    assert sorted(bs.reserves) == sorted(bid_of(g, b) for b in v), f"{ctx}: reserves {sorted(bs.reserves)}"
                elif k == "loc":
                    assert bs.loc == space_of(g, v), f"{ctx}: battle at {bs.loc}"
                elif k in ("attacker", "defender", "victor"):
                    got = getattr(bs, k)
                    assert (got.value if got else None) == v, f"{ctx}: {k} is {got}"
                else:
                    assert getattr(bs, k) == v, f"{ctx}: {k} is {getattr(bs, k)!r}, expected {v!r}"
        elif key == "contests":
            got = {loc: c.attacker.value for loc, c in st.contests.items()}
            assert got == {space_of(g, k): v for k, v in spec.items()}, f"{ctx}: contests {got}"
        elif key == "pending":
            wants = spec if isinstance(spec, list) else [spec]
            pend = g.pending()
            if not wants:
                assert not pend, f"{ctx}: pending {pend}"
            for w in wants:
                assert any(_decision_matches(g, d, w) for d in pend), f"{ctx}: no pending decision like {w}; pending {pend}"
        elif key in ("phase", "turn", "year"):
            got = getattr(st, key)
            got = got.value if key == "phase" else got
            assert got == spec, f"{ctx}: {key} is {got!r}"
        elif key == "player1":
            got = st.player1.value if st.player1 else None
            assert got == spec, f"{ctx}: Player 1 is {got}"
        elif key == "effective":
            for s, c in spec.items():
                assert st.effective.get(Side.parse(s)) == c, f"{ctx}: {s}'s effective card is {st.effective.get(Side.parse(s))}"
        elif key == "vp":
            for s, n in spec.items():
                assert g.vp(Side.parse(s)) == n, f"{ctx}: {s} has {g.vp(Side.parse(s))} VP"
        elif key == "supply_limit":
            for city, n in spec.items():
                assert winter.supply_limit(g, space_of(g, city)) == n, f"{ctx}: {city} supports {winter.supply_limit(g, space_of(g, city))}"
        elif key == "hand_size":
            for s, n in spec.items():
                assert len(st.hands[Side.parse(s)]) == n, f"{ctx}: {s} holds {st.hands[Side.parse(s)]}"
        elif key == "hands":
            for s, cards in spec.items():
                assert Counter(st.hands[Side.parse(s)]) == Counter(cards), f"{ctx}: {s} holds {st.hands[Side.parse(s)]}"
        elif key == "result":
            r = st.result
            assert r is not None, f"{ctx}: the game is not over"
            if "winner" in spec:
                assert (r.winner.value if r.winner else None) == spec["winner"], f"{ctx}: winner {r.winner} ({r.reason})"
            if "reason_contains" in spec:
                assert spec["reason_contains"] in r.reason, f"{ctx}: reason {r.reason!r}"
        elif key == "moved":
            got = sorted(st.moved)
            assert got == sorted(bid_of(g, b) for b in spec), f"{ctx}: moved {got}"
        elif key == "command":
            c = st.command
            assert c is not None, f"{ctx}: no command phase in progress"
            for k, v in spec.items():
                got = getattr(c, k)
                got = got.value if hasattr(got, "value") else got
                assert got == v, f"{ctx}: command {k} is {got!r}, expected {v!r}"
        elif key == "events_contain":
            texts = [e.text for e in events]
            for s in spec:
                assert any(s in t for t in texts), f"{ctx}: no event says {s!r}; events: {texts}"
        elif key == "events_exclude":
            texts = [e.text for e in events]
            for s in spec:
                assert not any(s in t for t in texts), f"{ctx}: an event says {s!r}"
        elif key == "event_values":
            for k, values in spec.items():
                got = _event_values(events, k)
                if k.endswith(".block"):
                    values = [bid_of(g, v) for v in values]
                assert got == values, f"{ctx}: {k} values are {got}, expected {values}"
        else:
            raise AssertionError(f"unknown check {key!r}")


def _decision_matches(g: Game, d: Decision, want: dict[str, Any]) -> bool:
    for k, v in want.items():
        if k == "side" and d.side.value != v:
            return False
        if k == "kind" and d.kind.value != v:
            return False
        if k == "location" and d.location != (space_of(g, v) if v else None):
            return False
        if k == "block" and d.block != bid_of(g, v):
            return False
        if k == "info":
            for ik, iv in v.items():
                got = d.get(ik)
                if ik == "blocks":
                    got = sorted(got or ())
                    iv = sorted(bid_of(g, b) for b in iv)
                elif isinstance(got, tuple):
                    got = list(got)
                if got != iv:
                    return False
    return True


# ---- the test -----------------------------------------------------------------------


RULINGS = [f"{k}{i}" for k, n in (("C", 5), ("E", 6), ("M", 8), ("B", 7), ("W", 5)) for i in range(1, n + 1)]


def test_cases_found() -> None:
    assert len(CASES) >= 60
    ids = [p.values[0]["id"] for p in CASES]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]


def test_every_ruling_has_a_case() -> None:
    rules = " ".join(p.values[0]["rule"] for p in CASES)
    missing = [r for r in RULINGS if not re.search(rf"\b{r}\b", rules)]
    assert not missing, f"rulings without a conformance case: {missing}"


@pytest.mark.parametrize("case", CASES)
def test_conformance(case: dict[str, Any]) -> None:
    unknown = set(case) - CASE_KEYS
    assert not unknown, f"unknown case keys {unknown}"
    assert case.get("rule") and len(case.get("quote", "")) >= 20, "a case names its rule and quotes it"
    steps = case.get("steps", [])
    illegal_steps = [s for s in steps if isinstance(s.get("expect"), dict)]
    assert case.get("check") or illegal_steps or any("check" in s for s in steps), "a case must assert something"
    g = build_game(case["setup"])
    session = Session(g, Settings.from_json(case.get("settings", {})))
    events: list[Any] = list(g.events)
    for i, step in enumerate(steps):
        run_step(g, i, step, events, session)
    run_checks(g, case.get("check", {}), events)



# ---- the scenario builder (pbem.games.caesar.rules.scenario) --------------------------------------

EXAMPLE_SPEC: dict[str, Any] = {
    "year": 705, "turn": 2, "seed": 7,
    "options": {"tournament": False},
    "blocks": {"Caesar": {"Massilia": ["Legio 11", "Legio 14 II", "Navis 1"], "Genua": ["Antonius"]},
               "Pompey": {"Tarraco": ["Legio 5", "Legio 6 I"]}},
    "eliminated": {"Pompey": ["Legio 1"]}, "dead": {"Caesar": []},
    "hands": {"Caesar": ["3/2", "2/2"], "Pompey": ["Mars", "1/2"]},
    "command": {"player1": "Caesar", "cards": {"Caesar": "3/2", "Pompey": "2/1"}},
}  # fmt: skip


def test_scenario_example_spec() -> None:
    g = build_game(EXAMPLE_SPEC)
    st = g.state
    assert g.blocks_at("Massilia") == ["Caesar:Legio 11", "Caesar:Legio 14", "Caesar:Navis 1"]
    assert st.blocks["Caesar:Legio 14"].strength == 2 and st.blocks["Caesar:Legio 11"].strength == 3
    assert st.blocks["Pompey:Legio 6"].strength == 1
    assert st.blocks["Pompey:Legio 1"].status.value == "eliminated"
    assert st.blocks["Caesar:Legio 8"].status.value == "pool"  # not listed: in the levy pool
    assert st.blocks["Cleopatra"].loc == "Alexandria" and st.blocks["Cleopatra"].side is Side.POMPEY
    assert (st.year, st.turn, st.phase.value, st.player1) == (705, 2, "command", Side.CAESAR)
    assert st.hands[Side.POMPEY] == ["Mars", "1/2"]
    (d,) = g.pending()
    assert (d.side, d.kind, d.get("mp"), d.get("lp")) == (Side.CAESAR, DecisionKind.MOVES, 3, 2)
    assert Game.from_json(g.to_json()).to_json() == g.to_json()


def test_scenario_card_phase_and_deal() -> None:
    spec = {k: v for k, v in EXAMPLE_SPEC.items() if k != "command"}
    g = build_game(spec)
    assert g.state.phase.value == "card" and {d.kind for d in g.pending()} == {DecisionKind.PLAY}
    del spec["hands"]
    g = build_game(spec)  # turn 2 without hands: dealt, each keeps 6 - 2 cards
    assert [len(g.state.hands[s]) for s in Side] == [4, 4] and g.state.turn == 2
    g = build_game(dict(spec, turn=1))
    assert g.state.phase.value == "discard" and [len(g.state.hands[s]) for s in Side] == [6, 6]
    g = build_game({"blocks": {"Caesar": {"Rome": ["L8"]}}, "phase": "winter"})
    assert g.state.phase.value == "winter" and any(e.kind == "vp" for e in g.events)


def test_scenario_default_player1_follows_the_cards() -> None:
    g = build_game({"blocks": {"Caesar": {"Rome": ["L8"]}}, "command": {"cards": {"Caesar": "1/3", "Pompey": "Vulcan"}}})
    assert g.state.player1 is Side.POMPEY and g.pending()[0].kind is DecisionKind.EVENT_TARGET


def test_scenario_reports_every_problem() -> None:
    from pbem.errors import PositionFormatError

    bad = {
        "year": 700, "turn": 9, "colour": "red",
        "blocks": {"Caesar": {"Rome": ["L8", "Foo", "Legio 9 IV"], "Atlantis": ["L9"], "Mare Hispanum": ["L10"]},
                   "Pompey": {"Massilia": ["Elephant III", "L8"]}, "Crassus": {}},
        "eliminated": {"Caesar": ["L8"]}, "dead": {"Pompey": ["Legio 1"]},
        "hands": {"Caesar": ["9/9"]},
        "command": {"player1": "Pompey", "cards": {"Caesar": "3/2", "Pompey": "2/1"}},
    }  # fmt: skip
    with pytest.raises(PositionFormatError) as info:
        build_game(bad)
    text = str(info.value)
    for problem in (
        "unknown key 'colour'",
        "year 700 is outside 705-709",
        "turn 9 is outside 1-5",
        "unknown Caesar block 'Foo'",
        "Caesar's Legio 9 cannot stand at IV; it can be III/II/I",
        "unknown location 'Atlantis'",
        "Legio 10 is a land block and Mare Hispanum is a sea",
        "Pompey's Elephant cannot stand at III; it can be IV/II",
        "unknown side 'Crassus'",
        "Caesar:Legio 8 is placed twice: Caesar at Roma and eliminated",
        "dead: Legio 1 is not a leader",
        "unknown card '9/9'",
        "command.player1 is Pompey, but with these cards Caesar is Player 1",
    ):
        assert problem in text, f"not reported: {problem}\n{text}"


def test_scenario_documents() -> None:
    from pbem.errors import PositionFormatError
    from pbem.games.caesar.rules.scenario import scenario_from_text

    g = scenario_from_text(json.dumps(EXAMPLE_SPEC))
    assert scenario_from_text(json.dumps(g.to_json())).to_json() == g.to_json()
    with pytest.raises(PositionFormatError, match="bad.json is not JSON"):
        scenario_from_text("{not json", "bad.json")
    with pytest.raises(PositionFormatError, match="expected an object"):
        scenario_from_text("[1, 2]")
