"""Conformance suite: every case in pbem/games/caesar/conformance/cases/*.json, one test id per case.

The cases and their runner belong to the game (:mod:`pbem.games.caesar.conformance`; the
runner's docstring describes a case). Here: one parametrized test over the runner, the
suite's own meta-tests (every ruling has a case, enough cases are in the order language,
the runner can fail), and the scenario builder the cases are set up with.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pbem.games.caesar.conformance import load_cases, run_case
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.choices import DecisionKind
from pbem.games.caesar.rules.game import Game
from pbem.games.caesar.rules.scenario import build_game

CASES = [pytest.param(case, id=f"{stem}:{case.get('id', '?')}") for stem, case in load_cases()]
BY_ID = {case["id"]: case for _, case in load_cases()}


@pytest.mark.parametrize("case", CASES)
def test_conformance(case: dict[str, Any]) -> None:
    problems = run_case(case)
    assert not problems, "\n".join(map(str, problems))


# ---- the suite itself ----------------------------------------------------------------


RULINGS = [f"{k}{i}" for k, n in (("C", 5), ("E", 6), ("M", 8), ("B", 7), ("W", 5)) for i in range(1, n + 1)]


def test_cases_found() -> None:
    assert len(CASES) >= 100
    ids = [p.values[0]["id"] for p in CASES]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]


def test_every_ruling_has_a_case() -> None:
    rules = " ".join(p.values[0]["rule"] for p in CASES)
    missing = [r for r in RULINGS if not re.search(rf"\b{r}\b", rules)]
    assert not missing, f"rulings without a conformance case: {missing}"


def in_order_language(case: dict[str, Any]) -> bool:
    """Every submission of the case is orders, as players send them (auto steps answer routine turns)."""
    steps = case.get("steps", [])
    return any("orders" in s for s in steps) and not any("choice" in s for s in steps)


def test_a_third_of_the_cases_are_in_the_order_language() -> None:
    cases = [p.values[0] for p in CASES]
    n = sum(map(in_order_language, cases))
    assert 3 * n >= len(cases), f"{n} of {len(cases)} cases are in the order language"


def test_the_readme_counts_the_cases() -> None:
    cases = [p.values[0] for p in CASES]
    n = sum(map(in_order_language, cases))
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert f"{len(cases)} conformance cases, {n} of them in the order language" in readme


def _wrong(case_id: str, change: Any) -> list[str]:
    case = copy.deepcopy(BY_ID[case_id])
    change(case)
    return [str(p) for p in run_case(case)]


def test_a_wrong_expectation_is_reported() -> None:
    case_id = "b7-navis-retreat-plan-to-the-other-navis-origin"
    assert run_case(BY_ID[case_id]) == []

    def elsewhere(case: dict[str, Any]) -> None:
        case["check"]["at"]["Creta"] = ["Pompey:N2"]

    (problem,) = _wrong(case_id, elsewhere)
    assert problem.startswith(f"{case_id}: check 'at': Creta holds ['Pompey:Navis 1'], expected ['Pompey:Navis 2']")


def test_a_legal_order_expected_illegal_is_reported() -> None:
    case_id = "b4-one-sea-retreat-per-round-for-each-side"

    def legal(case: dict[str, Any]) -> None:  # the first sea retreat of the round is legal
        case["steps"][4]["expect"] = {"illegal": "cannot retreat"}

    (problem,) = _wrong(case_id, legal)
    assert problem.startswith(f"{case_id}: step 4: Pompey's orders ['retreat Legio 39 -> sea Carthago Nova'] were accepted")


def test_a_refusal_for_another_reason_is_reported() -> None:
    case_id = "b4-one-sea-retreat-per-round-for-each-side"

    def reason(case: dict[str, Any]) -> None:
        case["steps"][5]["expect"] = {"illegal": "not adjacent"}

    (problem,) = _wrong(case_id, reason)
    assert problem.startswith(f"{case_id}: step 5: Pompey's orders were refused, but for another reason")


def test_a_refused_order_expected_legal_is_reported() -> None:
    case_id = "b4-one-sea-retreat-per-round-for-each-side"

    def ok(case: dict[str, Any]) -> None:
        del case["steps"][5]["expect"]

    (problem,) = _wrong(case_id, ok)
    assert problem.startswith(f"{case_id}: step 5: Pompey's orders ['retreat Legio 5 -> sea Carthago Nova'] were refused")


def test_every_failing_check_is_reported_and_a_bad_case_is_named() -> None:
    case_id = "b7-navis-retreat-plan-to-the-other-navis-origin"

    def two(case: dict[str, Any]) -> None:
        case["check"]["at"]["Creta"] = []
        case["check"]["battle"] = {"round": 2}
        case["colour"] = "red"

    assert _wrong(case_id, two) == [f"{case_id}: case: unknown case keys ['colour'] (known: "
                                    "['check', 'id', 'note', 'quote', 'rule', 'settings', 'setup', 'steps'])"]

    def checks(case: dict[str, Any]) -> None:
        case["check"]["at"]["Creta"] = []
        case["check"]["battle"] = {"round": 2}

    problems = _wrong(case_id, checks)
    assert [p.split(":")[1] for p in problems] == [" check 'at'", " check 'battle'"]


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
