"""Run one conformance case: set up its position, apply its steps, compare what happened.

A case is data (the files in ``cases/``)::

    {"id": "pinning-example", "rule": "6.13", "quote": "<the rule text it checks>",
     "setup": {<compact scenario spec, see pbem.games.caesar.rules.scenario>},
     "settings": {"battles": "interactive"},              (optional: the play-by-email options)
     "steps": [{"orders": {"Caesar": ["move Genua -> Roma: Legio 8, Legio 9"]}},
               {"orders": {"Pompey": ["move Roma -> Neapolis: Legio 1, Legio 2"]}, "expect": {"illegal": "pin"}},
               {"orders": {"Pompey": ["move Roma -> Neapolis: Legio 1"]}},
               {"orders": {"Caesar": [], "Pompey": []}},
               {"auto": "pass", "until_round": 2}],
     "check": {<assertions on the final position, see run_checks>}}

Three kinds of step:

* **Orders**, as players send them (like Diplomacy's DATC cases):
  ``{"orders": {"Caesar": ["move Genua -> Roma: Legio 8"], "Pompey": []}}`` submits each
  side's lines, in that order, to the play-by-email
  :class:`~pbem.games.caesar.steps.session.Session` over the case's position, so the order
  language's parser, the submission checker and the engine are exercised together. A
  submission is a whole step's orders (a side's command is its moves and its levies).
* **Choices**, the engine's own decisions, for what no submission can express (a look at
  the legal moves in the middle of a command, a check between two moves):
  ``{"side": "Caesar", "choice": {"type": "Move", "block": "L8", "path": ["Genua", "Rome"]}}``.
* **Auto**: ``"pass"`` passes battle turns until the battle reaches ``until_round`` (or
  ends); ``"end"`` answers with the End/None choice until a decision of kind ``until`` is
  pending (``"over"``: until the game ends).

``expect`` is ``"ok"`` (the default) or ``{"illegal": text}``: the choice or the submission
must be refused with ``text`` in its message (which ends with the rule number), and the
refusal must change nothing. A step may carry its own ``check``, run right after it.

Names in choices and checks are written as players write them: blocks by their owner's
short form (``"L8"``; in checks ``"Caesar:L8"``), locations by any alias.

:func:`run_case` returns the list of :class:`Problem`; an empty list is a pass. An exception
other than a refusal (an :class:`~pbem.errors.EngineError`, an ``AssertionError`` of the
engine) is a bug of the engine, not a difference, and propagates. Pure: the caller loads
the case (:func:`pbem.games.caesar.conformance.load_cases`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pbem.core.events import Event
from pbem.core.orders import SubmissionRejected
from pbem.errors import IllegalChoiceError, PbemError
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

__all__ = ["CASE_KEYS", "Problem", "case_problems", "run_case", "run_checks"]

CASE_KEYS = frozenset({"id", "rule", "quote", "setup", "settings", "steps", "check", "note"})
STEP_KEYS = frozenset({"side", "choice", "orders", "auto", "until", "until_round", "expect", "check"})
_BLOCK_FIELDS = {"block"}
_SPACE_FIELDS = {"location", "origin", "city", "to", "target", "port"}
_MAX_AUTO = 500


@dataclass(frozen=True)
class Problem:
    """One difference between a case and the engine: which case, where in it, what differed."""

    case: str
    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.case}: {self.where}: {self.what}"


class _Differs(Exception):
    """Raised inside the runner for one difference; :func:`run_case` turns it into a :class:`Problem`."""


def _require(ok: bool, what: str) -> None:
    if not ok:
        raise _Differs(what)


# ---- names ----------------------------------------------------------------------


def bid_of(g: Game, text: str, side: Side | None = None) -> str:
    """``"Caesar:L8"`` / ``"Caesar:Legio 8"`` / ``"Cleopatra"``; bare ``"L8"`` with ``side``."""
    if text in g.state.blocks:
        return text
    try:
        if ":" in text:
            prefix, name = text.split(":", 1)
            s = Side.parse(prefix)
            return g.board.resolve_block(s, name, cleopatra_side=s)
        if side is None:
            raise _Differs(f"block {text!r} needs a side prefix (\"Caesar:{text}\")")
        return g.resolve_own_block(side, text)
    except PbemError as exc:
        raise _Differs(f"the case names a block the engine does not know: {exc}") from exc


def space_of(g: Game, text: str) -> str:
    try:
        return g.board.resolve_space(text)
    except PbemError as exc:
        raise _Differs(f"the case names a location the engine does not know: {exc}") from exc


def normalize_choice(g: Game, side: Side, data: Mapping[str, Any]) -> Choice:
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
    try:
        return choice_from_json(d)
    except (KeyError, TypeError, ValueError) as exc:
        raise _Differs(f"the case's choice {dict(data)} is not a choice: {exc!r}") from exc


def _side(text: str) -> Side:
    try:
        return Side.parse(text)
    except PbemError as exc:
        raise _Differs(str(exc)) from exc


def _json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True)


# ---- steps ------------------------------------------------------------------------

END_CHOICES: dict[DecisionKind, Choice] = {
    DecisionKind.MOVES: EndMoves(),
    DecisionKind.LEVIES: EndLevies(),
    DecisionKind.REGROUP: EndRegroup(),
    DecisionKind.WINTER_DISBAND: EndDisband(),
    DecisionKind.SURPRISE: Surprise(None),
    DecisionKind.EVENT_TARGET: NoEvent(),
}


def _apply_auto(g: Game, side: Side, choice: Choice, events: list[Event]) -> None:
    try:
        events.extend(g.apply(side, choice))
    except IllegalChoiceError as exc:
        raise _Differs(f"auto: {side} {choice!r} was refused: {exc}") from exc


def _run_auto(g: Game, step: Mapping[str, Any], events: list[Event]) -> None:
    mode = step["auto"]
    for _ in range(_MAX_AUTO):
        pend = g.pending()
        if mode == "pass":
            bs = g.state.battle
            if bs is None or bs.round >= step.get("until_round", 99) or not pend:
                return
            d = pend[0]
            if d.kind is not DecisionKind.BATTLE_TURN:
                return
            blk = d.get("blocks")[0]
            _apply_auto(g, d.side, BattleAction(blk, Action.PASS), events)
        elif mode == "end":
            kinds = [d.kind.value for d in pend]
            if step["until"] in kinds or (step["until"] == "over" and g.is_over()):
                return
            _require(bool(pend), f"auto end: nothing is pending, and no {step['until']!r} decision came")
            d = pend[0]
            _require(d.kind in END_CHOICES, f"auto end: a {d.kind.value} decision came before a {step['until']!r} one")
            _apply_auto(g, d.side, END_CHOICES[d.kind], events)
        else:
            raise _Differs(f"unknown auto step {mode!r} (known: 'pass', 'end')")
    raise _Differs(f"auto step {dict(step)} did not finish in {_MAX_AUTO} decisions")


def _run_orders(session: Session, step: Mapping[str, Any], events: list[Event]) -> None:
    expect = step.get("expect", "ok")
    for side_name, lines in step["orders"].items():
        side = _side(side_name)
        text = "\n".join(lines)
        if expect == "ok":
            try:
                events.extend(session.submit(side, text))
            except SubmissionRejected as exc:
                raise _Differs(f"{side}'s orders {lines} were refused: {exc}") from exc
            continue
        before = _json(session.to_json())
        try:
            session.submit(side, text)
        except SubmissionRejected as exc:
            got = str(exc)
        else:
            raise _Differs(f"{side}'s orders {lines} were accepted; expected a refusal for {expect['illegal']!r}")
        _require(expect["illegal"].lower() in got.lower(),
                 f"{side}'s orders were refused, but for another reason: {got!r} (wanted {expect['illegal']!r})")
        _require(_json(session.to_json()) == before, f"{side}'s refused orders changed the game")


def _run_choice(g: Game, step: Mapping[str, Any], events: list[Event]) -> None:
    side = _side(step["side"])
    choice = normalize_choice(g, side, step["choice"])
    expect = step.get("expect", "ok")
    if expect == "ok":
        try:
            events.extend(g.apply(side, choice))
        except IllegalChoiceError as exc:
            raise _Differs(f"{side} {choice!r} was refused: {exc}") from exc
        return
    before = _json(g.to_json())
    try:
        g.apply(side, choice)
    except IllegalChoiceError as exc:
        got = str(exc)
    else:
        raise _Differs(f"{side} {choice!r} was accepted; expected a refusal for {expect['illegal']!r}")
    _require(expect["illegal"].lower() in got.lower(),
             f"refused, but for another reason: {got!r} (wanted {expect['illegal']!r})")
    _require(_json(g.to_json()) == before, "a refused choice changed the position")


def _run_step(session: Session, step: Mapping[str, Any], events: list[Event]) -> None:
    unknown = set(step) - STEP_KEYS
    _require(not unknown, f"unknown step keys {sorted(unknown)}")
    if "auto" in step:
        _run_auto(session.game, step, events)
    elif "orders" in step:
        _run_orders(session, step, events)
    elif "choice" in step:
        _run_choice(session.game, step, events)
    else:
        raise _Differs("a step has 'orders', a 'side' and its 'choice', or 'auto'")


# ---- checks -----------------------------------------------------------------------


def _decision_of(g: Game, side: Side, kind: DecisionKind | None = None) -> Decision:
    for d in g.pending():
        if d.side is side and (kind is None or d.kind is kind):
            return d
    raise _Differs(f"no pending {kind.value + ' ' if kind else ''}decision for {side}; pending: {g.pending()}")


def _moves_of(g: Game, bid: str, cls: type) -> list[tuple[str, ...]]:
    side = g.state.blocks[bid].side
    d = _decision_of(g, side, DecisionKind.MOVES)
    return sorted(ch.path for ch in g.legal(d) if isinstance(ch, (Move, SeaMove)) and type(ch) is cls and ch.block == bid)


def _paths(g: Game, paths: list[list[str]]) -> list[tuple[str, ...]]:
    return sorted(tuple(space_of(g, x) for x in p) for p in paths)


def _spaces(g: Game, names: list[str]) -> list[str]:
    return sorted(space_of(g, x) for x in names)


def _choice_key(c: Choice) -> str:
    return _json(choice_to_json(c))


def _check_legal(g: Game, spec: Mapping[str, Any]) -> None:
    pend = g.pending()
    _require(bool(pend), "nothing is pending")
    d = _decision_of(g, _side(spec["side"])) if "side" in spec else pend[0]
    legal = list(g.legal(d))
    want = {k: [normalize_choice(g, d.side, c) for c in spec.get(k, [])] for k in ("include", "exclude", "exact")}
    for c in want["include"]:
        _require(c in legal, f"{c!r} is not legal; legal: {legal}")
    for c in want["exclude"]:
        _require(c not in legal, f"{c!r} is legal and should not be")
    if "exact" in spec:
        got, wanted = sorted(map(_choice_key, legal)), sorted(map(_choice_key, want["exact"]))
        _require(got == wanted, f"legal: {got}, expected {wanted}")


def _check_next(g: Game, bid: str, spec: Mapping[str, Any]) -> None:
    after = tuple(space_of(g, x) for x in spec["after"])
    nxt = sorted({p[len(after)] for p in _moves_of(g, bid, Move) if len(p) > len(after) and p[: len(after)] == after})
    if "exact" in spec:
        _require(nxt == _spaces(g, spec["exact"]), f"{bid} after {after}: next {nxt}")
    for x in spec.get("include", []):
        _require(space_of(g, x) in nxt, f"{bid} after {after}: {x} not among {nxt}")
    for x in spec.get("exclude", []):
        _require(space_of(g, x) not in nxt, f"{bid} after {after}: {x} should not be among {nxt}")


def _event_values(events: list[Event], key: str) -> list[Any]:
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


def _decision_matches(g: Game, d: Decision, want: Mapping[str, Any]) -> bool:
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


def _check_battle(g: Game, spec: Mapping[str, Any] | None) -> None:
    bs = g.state.battle
    if spec is None:
        _require(bs is None, f"a battle at {bs.loc if bs else ''} is in progress")
        return
    _require(bs is not None, "no battle in progress")
    assert bs is not None
    for k, v in spec.items():
        if k == "reserves":
            _require(sorted(bs.reserves) == sorted(bid_of(g, b) for b in v), f"reserves {sorted(bs.reserves)}")
        elif k == "loc":
            _require(bs.loc == space_of(g, v), f"battle at {bs.loc}")
        elif k in ("attacker", "defender", "victor"):
            got = getattr(bs, k)
            _require((got.value if got else None) == v, f"{k} is {got}, expected {v}")
        else:
            _require(getattr(bs, k) == v, f"{k} is {getattr(bs, k)!r}, expected {v!r}")


def _check_one(g: Game, key: str, spec: Any, events: list[Event]) -> None:  # noqa: C901 - one branch per check
    st = g.state
    got: Any
    if key == "at":
        for loc, ids in spec.items():
            got = g.blocks_at(space_of(g, loc))
            want = sorted(bid_of(g, b) for b in ids)
            _require(got == want, f"{loc} holds {got}, expected {want}")
    elif key == "count":
        for loc, per in spec.items():
            for s, n in per.items():
                got = g.count(space_of(g, loc), _side(s))
                _require(got == n, f"{s} has {got} blocks in {loc}, expected {n}")
    elif key == "strength":
        for b, n in spec.items():
            got = st.blocks[bid_of(g, b)].strength
            _require(got == n, f"{b} is at {got}, expected {n}")
    elif key == "status":
        for b, s in spec.items():
            got = st.blocks[bid_of(g, b)].status.value
            _require(got == s, f"{b} is {got}, expected {s}")
    elif key == "side_of":
        for b, s in spec.items():
            got = st.blocks[bid_of(g, b)].side.value
            _require(got == s, f"{b} belongs to {got}, expected {s}")
    elif key == "legal_paths":
        for b, paths in spec.items():
            got = _moves_of(g, bid_of(g, b), Move)
            _require(got == _paths(g, paths), f"{b} can move by {got}, expected {_paths(g, paths)}")
    elif key == "legal_sea_paths":
        for b, paths in spec.items():
            got = _moves_of(g, bid_of(g, b), SeaMove)
            _require(got == _paths(g, paths), f"{b} can move by sea by {got}, expected {_paths(g, paths)}")
    elif key == "legal_destinations":
        for b, dests in spec.items():
            got = sorted({p[-1] for p in _moves_of(g, bid_of(g, b), Move)})
            _require(got == _spaces(g, dests), f"{b} can reach {got}, expected {_spaces(g, dests)}")
    elif key == "legal_next":
        for b, sub in spec.items():
            _check_next(g, bid_of(g, b), sub)
    elif key == "legal":
        _check_legal(g, spec)
    elif key == "retreats":
        _require(st.battle is not None, "no battle in progress")
        for b, dests in spec.items():
            opts = battle.retreat_options(g, bid_of(g, b))
            got = sorted(("by sea: " if o.by_sea else "") + (o.to or "") for o in opts)
            wanted = sorted(
                ("by sea: " + space_of(g, x[len("by sea: "):])) if x.startswith("by sea: ") else space_of(g, x)
                for x in dests
            )
            _require(got == wanted, f"{b} can retreat to {got}, expected {wanted}")
    elif key == "regroups":
        bs = st.battle
        _require(bs is not None and bs.victor is not None, "no regroup in progress")
        assert bs is not None and bs.victor is not None
        regroups = battle.regroup_options(g, bs.victor)
        for b, dests in spec.items():
            bid = bid_of(g, b)
            got = sorted(o.to for o in regroups if o.block == bid)
            _require(got == _spaces(g, dests), f"{b} can regroup to {got}, expected {_spaces(g, dests)}")
    elif key == "battle":
        _check_battle(g, spec)
    elif key == "contests":
        got = {loc: c.attacker.value for loc, c in st.contests.items()}
        _require(got == {space_of(g, k): v for k, v in spec.items()}, f"contests {got}")
    elif key == "pending":
        wants = spec if isinstance(spec, list) else [spec]
        pend = g.pending()
        if not wants:
            _require(not pend, f"pending {pend}, expected nothing")
        for w in wants:
            _require(any(_decision_matches(g, d, w) for d in pend), f"no pending decision like {w}; pending {pend}")
    elif key in ("phase", "turn", "year"):
        got = getattr(st, key)
        got = got.value if key == "phase" else got
        _require(got == spec, f"{key} is {got!r}, expected {spec!r}")
    elif key == "player1":
        got = st.player1.value if st.player1 else None
        _require(got == spec, f"Player 1 is {got}, expected {spec}")
    elif key == "effective":
        for s, c in spec.items():
            got = st.effective.get(_side(s))
            _require(got == c, f"{s}'s effective card is {got}, expected {c}")
    elif key == "vp":
        for s, n in spec.items():
            got = g.vp(_side(s))
            _require(got == n, f"{s} has {got} VP, expected {n}")
    elif key == "supply_limit":
        for city, n in spec.items():
            got = winter.supply_limit(g, space_of(g, city))
            _require(got == n, f"{city} supports {got}, expected {n}")
    elif key == "hand_size":
        for s, n in spec.items():
            got = st.hands[_side(s)]
            _require(len(got) == n, f"{s} holds {got}, expected {n} cards")
    elif key == "hands":
        for s, cards in spec.items():
            got = st.hands[_side(s)]
            _require(Counter(got) == Counter(cards), f"{s} holds {got}, expected {cards}")
    elif key == "result":
        r = st.result
        _require(r is not None, "the game is not over")
        assert r is not None
        if "winner" in spec:
            got = r.winner.value if r.winner else None
            _require(got == spec["winner"], f"winner {got} ({r.reason}), expected {spec['winner']}")
        if "reason_contains" in spec:
            _require(spec["reason_contains"] in r.reason, f"reason {r.reason!r}")
    elif key == "moved":
        got = sorted(st.moved)
        want = sorted(bid_of(g, b) for b in spec)
        _require(got == want, f"moved {got}, expected {want}")
    elif key == "command":
        c = st.command
        _require(c is not None, "no command phase in progress")
        for k, v in spec.items():
            got = getattr(c, k)
            got = got.value if hasattr(got, "value") else got
            _require(got == v, f"command {k} is {got!r}, expected {v!r}")
    elif key == "events_contain":
        texts = [e.text for e in events]
        for s in spec:
            _require(any(s in t for t in texts), f"no event says {s!r}; events: {texts}")
    elif key == "events_exclude":
        texts = [e.text for e in events]
        for s in spec:
            _require(not any(s in t for t in texts), f"an event says {s!r}")
    elif key == "event_values":
        for k, values in spec.items():
            got = _event_values(events, k)
            want = [bid_of(g, v) for v in values] if k.endswith(".block") else values
            _require(got == want, f"{k} values are {got}, expected {want}")
    else:
        raise _Differs(f"unknown check {key!r}")


def run_checks(g: Game, check: Mapping[str, Any], events: list[Event]) -> list[tuple[str, str]]:
    """Every check of ``check`` on the position and the events so far: ``(check, what differed)`` pairs."""
    out = []
    for key, spec in check.items():
        try:
            _check_one(g, key, spec, events)
        except _Differs as exc:
            out.append((key, str(exc)))
    return out


# ---- a case ---------------------------------------------------------------------


def case_problems(case: Mapping[str, Any]) -> list[str]:
    """What is wrong with a case as a case (before running it)."""
    out = []
    unknown = set(case) - CASE_KEYS
    if unknown:
        out.append(f"unknown case keys {sorted(unknown)} (known: {sorted(CASE_KEYS)})")
    if not case.get("id"):
        out.append("a case has an 'id'")
    if not case.get("rule") or len(case.get("quote", "")) < 20:
        out.append("a case names its rule and quotes it")
    if "setup" not in case:
        out.append("a case has a 'setup'")
    steps = case.get("steps", [])
    illegal_steps = [s for s in steps if isinstance(s.get("expect"), dict)]
    if not (case.get("check") or illegal_steps or any("check" in s for s in steps)):
        out.append("a case must assert something: a 'check' or a step expected to be illegal")
    return out


def run_case(case: Mapping[str, Any]) -> list[Problem]:
    """Set up the case's position, apply its steps, run its checks: every difference found.

    Steps stop at the first that differs (what follows would compare nothing useful); the
    final checks each report on their own."""
    name = str(case.get("id", "?"))
    shape = case_problems(case)
    if shape:
        return [Problem(name, "case", p) for p in shape]
    try:
        g = build_game(case["setup"])
    except PbemError as exc:
        return [Problem(name, "setup", str(exc))]
    session = Session(g, Settings.from_json(case.get("settings", {})))
    events: list[Event] = list(g.events)
    for i, step in enumerate(case.get("steps", [])):
        try:
            _run_step(session, step, events)
        except _Differs as exc:
            return [Problem(name, f"step {i}", str(exc))]
        found = run_checks(session.game, step.get("check", {}), events)
        if found:
            return [Problem(name, f"step {i}, check {key!r}", what) for key, what in found]
    return [Problem(name, f"check {key!r}", what) for key, what in run_checks(session.game, case.get("check", {}), events)]
