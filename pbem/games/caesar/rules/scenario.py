"""Positions from a compact, human-written spec: tests, bug reports, custom scenarios.

A spec is a mapping (usually read from JSON)::

    {"year": 705, "turn": 2, "seed": 7,
     "options": {"tournament": false},
     "blocks": {"Caesar": {"Massilia": ["Legio 11", "Legio 14 II", "Navis 1"], "Genua": ["Antonius"]},
                "Pompey": {"Tarraco": ["Legio 5", "Legio 6 I"]}},
     "eliminated": {"Pompey": ["Legio 1"]}, "dead": {"Caesar": []},
     "hands": {"Caesar": ["3/2", "2/2"], "Pompey": ["Mars", "1/2"]},
     "previous": {"Caesar": "2/2", "Pompey": "3/1"},
     "command": {"player1": "Caesar", "cards": {"Caesar": "3/2", "Pompey": "2/1"}}}

* ``blocks``: where each block stands, per side. Names resolve the way players write
  them (``"L8"``, ``"Rome"``); a trailing Roman numeral sets the strength (default: full).
  ``"Cleopatra"`` may be listed under either side; unlisted, she stands with Pompey in
  Alexandria. Every other block not listed is in its side's levy pool.
* ``eliminated``: blocks in the pool face-up (not before next Year, 5.2); ``dead``:
  leaders killed (7.51).
* ``hands``: each side's cards. ``previous``: the cards in effect on the previous game
  turn of this Year (what a later Apollo copies, C2).
* ``command``: the command phase of this game turn begins with these effective cards
  (after Apollo) and Player 1 (by default the one rulings C4/C5 give), through the
  engine's own :func:`pbem.games.caesar.rules.movement.start_command`.
* Without ``command`` the position is at the card phase of the turn, hands as given. With
  no hands at all the engine deals (:func:`pbem.games.caesar.rules.cards.start_year`): on turn 1 that
  is the discard step of the Year; on a later turn each hand keeps its first ``6 - turn``
  cards (the rest stand for the discard and the cards played before; unless ``previous``
  says otherwise, the last of them that is not Apollo was the side's card last turn).
* ``"phase": "winter"``: start the Winter turn at once (the Year's five turns are over).

Every problem in a spec is reported at once in one :class:`PositionFormatError`.
:func:`scenario_from_text` also accepts a full position document (``"format":
"pbem-caesar-position"``).

Pure: the caller reads the file.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from pbem.core.rng import Rng
from pbem.errors import AmbiguousOrderError, PositionFormatError, UnknownNameError
from pbem.games.caesar.rules import cards, movement, winter
from pbem.games.caesar.rules.board import BlockType, Board, Side, default_board
from pbem.games.caesar.rules.game import Game
from pbem.games.caesar.rules.state import (
    LAST_YEAR,
    POSITION_FORMAT,
    TURNS_PER_YEAR,
    BlockState,
    BlockStatus,
    GameState,
    Options,
    Phase,
)

HAND_SIZE = 6  # dealt at the start of a Year (2.1); one is discarded
CLEOPATRA_HOME = "Alexandria"
_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4}
_STRENGTH_RE = re.compile(r"^(.*?)\s+(IV|III|II|I)$")
_KEYS = {"year", "turn", "seed", "options", "blocks", "eliminated", "dead", "hands", "previous", "command", "phase", "comment"}


def build_game(spec: Mapping[str, Any], board: Board | None = None) -> Game:
    """The position a compact spec describes; raises :class:`PositionFormatError` listing every problem."""
    return _Builder(spec, board or default_board()).build()


def scenario_from_text(text: str, name: str = "the scenario", board: Board | None = None) -> Game:
    """A game from JSON text holding either a full position document or a compact spec.

    ``name`` (a file name, say) only words the error messages; reading the file is the caller's job,
    so this module stays free of I/O.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PositionFormatError(f"{name} is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise PositionFormatError(f"{name} holds a JSON {type(data).__name__}; expected an object")
    if data.get("format") == POSITION_FORMAT:
        return Game.from_json(data, board)
    return build_game(data, board)


def parse_block_entry(text: str) -> tuple[str, int | None]:
    """``"Legio 14 II"`` -> ``("Legio 14", 2)``; ``"L8"`` -> ``("L8", None)`` (full strength)."""
    m = _STRENGTH_RE.match(text.strip())
    if m and m.group(1):
        return m.group(1), _ROMAN[m.group(2)]
    return text.strip(), None


class _Builder:
    def __init__(self, spec: Mapping[str, Any], board: Board) -> None:
        self.spec = spec
        self.board = board
        self.problems: list[str] = []

    # ---- helpers -----------------------------------------------------------------
    def side(self, text: Any, where: str) -> Side | None:
        try:
            return Side.parse(str(text))
        except UnknownNameError:
            self.problems.append(f"{where}: unknown side {text!r}; expected Caesar or Pompey")
            return None

    def space(self, text: Any, where: str) -> str | None:
        try:
            return self.board.resolve_space(str(text))
        except (UnknownNameError, AmbiguousOrderError) as exc:
            self.problems.append(f"{where}: {exc}")
            return None

    def block(self, side: Side, text: Any, where: str) -> str | None:
        try:
            return self.board.resolve_block(side, str(text), cleopatra_side=side)
        except UnknownNameError as exc:
            self.problems.append(f"{where}: {exc}")
            return None

    def card(self, text: Any, where: str) -> str | None:
        try:
            return self.board.card(str(text)).name
        except UnknownNameError as exc:
            self.problems.append(f"{where}: {exc}")
            return None

    def mapping(self, key: str) -> Mapping[str, Any]:
        v = self.spec.get(key, {})
        if v is None:
            return {}
        if not isinstance(v, Mapping):
            self.problems.append(f"{key!r} must be an object, not {type(v).__name__}")
            return {}
        return v

    def integer(self, key: str, default: int) -> int:
        v = self.spec.get(key, default)
        if isinstance(v, bool) or not isinstance(v, int):
            self.problems.append(f"{key!r} must be an integer, not {v!r}")
            return default
        return v

    # ---- the build -----------------------------------------------------------------
    def build(self) -> Game:
        if not isinstance(self.spec, Mapping):
            raise PositionFormatError(f"a scenario spec is a JSON object, not {type(self.spec).__name__}")
        spec, board = self.spec, self.board
        for k in sorted(set(spec) - _KEYS):
            self.problems.append(f"unknown key {k!r}; a spec may have {', '.join(sorted(_KEYS))}")
        year = self.integer("year", board.setup_year)
        turn = self.integer("turn", 1)
        seed = self.integer("seed", 0)
        if not board.setup_year <= year <= LAST_YEAR:
            self.problems.append(f"year {year} is outside {board.setup_year}-{LAST_YEAR}")
        if not 1 <= turn <= TURNS_PER_YEAR:
            self.problems.append(f"turn {turn} is outside 1-{TURNS_PER_YEAR}")
        opts = self.mapping("options")
        for k in sorted(set(opts) - {"tournament", "free_deployment"}):
            self.problems.append(f"options: unknown option {k!r}; known: free_deployment, tournament")
        if opts.get("free_deployment"):
            self.problems.append("options: free deployment (5.3) happens before the first Year; a scenario places blocks itself")
        options = Options(tournament=bool(opts.get("tournament", False)))
        phase = spec.get("phase")
        if phase not in (None, "card", "command", "winter"):
            self.problems.append(f"phase {phase!r}: a spec may ask for \"card\", \"command\" or \"winter\"")
        if phase == "command" and "command" not in spec:
            self.problems.append("phase \"command\" needs a \"command\" object (cards and Player 1)")
        if phase in ("winter", "card") and "command" in spec:
            self.problems.append(f"phase \"{phase}\" and \"command\" exclude each other")

        blocks = self.place_blocks()
        hands = self.read_hands(turn, "command" in spec)
        previous = self.read_previous(turn)
        command = self.read_command(turn, year, options) if "command" in spec else None
        if hands and command is None and turn > 1 and not previous and any(cards.APOLLO in h for h in hands.values()):
            self.problems.append("hands: Apollo needs the cards of the previous game turn to copy; add \"previous\" (C2)")

        # cards: no more copies of a card than the deck has (2.1)
        deck_counts = Counter(c.name for c in board.cards)
        in_use = Counter([c for h in (hands or {}).values() for c in h])
        if command:
            in_use.update(command[1].values())
        for name, n in sorted(in_use.items()):
            if n > deck_counts[name]:
                self.problems.append(f"cards: {n} copies of {name} in hands and play; the deck has {deck_counts[name]}")
        if self.problems:
            raise PositionFormatError(_message(self.problems))

        state = GameState(options=options, year=year, turn=turn, phase=Phase.CARD, rng=Rng(seed), blocks=blocks)
        g = Game(state, board)
        if hands is not None:
            for s in Side:
                state.hands[s] = sorted(hands.get(s, []), key=cards.card_sort_key)
            state.deck = _rest_of_deck(board, in_use)
        state.prev_effective = dict(previous)
        if command is not None:
            p1, eff = command
            if hands is None:
                _deal_after_play(g, eff)
            state.played = dict(eff)
            state.effective = dict(eff)
            state.player1 = p1
            movement.start_command(g, p1)
        elif phase == "winter":
            state.turn = TURNS_PER_YEAR
            winter.start(g)
        elif hands is None:
            cards.start_year(g)
            if turn > 1:
                keep = HAND_SIZE - turn
                for s in Side:
                    gone = state.hands[s][keep:]
                    state.deck.extend(gone)
                    del state.hands[s][keep:]
                    if s not in state.prev_effective:
                        # a card this side no longer holds stands for its card of the previous turn (for Apollo)
                        state.prev_effective[s] = next(c for c in reversed(gone) if c != cards.APOLLO)
                state.turn = turn
                state.phase = Phase.CARD
        g.advance()  # g.events keeps what the set-up caused (a deal, the Winter's automatic steps)
        problems = g.problems()
        if problems:
            raise PositionFormatError(_message(problems))
        return g

    def place_blocks(self) -> dict[str, BlockState]:
        board = self.board
        out: dict[str, BlockState] = {}
        for block_id, block_info in board.blocks.items():
            out[block_id] = BlockState(block_info.side, None, block_info.min_strength, BlockStatus.POOL)
        where: dict[str, str] = {}  # block id -> how the spec placed it, to find duplicates

        def claim(bid: str, how: str) -> bool:
            if bid in where:
                self.problems.append(f"{board.blocks[bid].id} is placed twice: {where[bid]} and {how}")
                return False
            where[bid] = how
            return True

        for side_text, locs in self.mapping("blocks").items():
            side = self.side(side_text, "blocks")
            if side is None:
                continue
            if not isinstance(locs, Mapping):
                self.problems.append(f"blocks.{side_text} must map locations to lists of blocks")
                continue
            for loc_text, names in locs.items():
                loc = self.space(loc_text, f"blocks.{side_text}")
                if isinstance(names, str) or not isinstance(names, list):
                    self.problems.append(f"blocks.{side_text}.{loc_text} must be a list of block names")
                    continue
                for entry in names:
                    name, strength = parse_block_entry(str(entry))
                    bid = self.block(side, name, f"blocks.{side_text}.{loc_text}")
                    if bid is None or loc is None or not claim(bid, f"{side} at {loc}"):
                        continue
                    info = board.blocks[bid]
                    sp = board.spaces[loc]
                    if sp.is_sea and not info.is_navis:
                        self.problems.append(f"{side}'s {info.name} is a land block and {loc} is a sea (4.4)")
                    if info.is_navis and not (sp.is_sea or sp.is_port):
                        self.problems.append(f"{side}'s {info.name} is a Navis and {loc} is not a port (4.1)")
                    if strength is None:
                        strength = info.max_strength
                    elif strength not in info.strengths():
                        allowed = "/".join(_roman(s) for s in info.strengths())
                        self.problems.append(f"{side}'s {info.name} cannot stand at {_roman(strength)}; it can be {allowed}")
                        continue
                    out[bid] = BlockState(side, loc, strength, BlockStatus.MAP)
        for key, status in (("eliminated", BlockStatus.ELIMINATED), ("dead", BlockStatus.DEAD)):
            for side_text, names in self.mapping(key).items():
                side = self.side(side_text, key)
                if side is None:
                    continue
                if isinstance(names, str) or not isinstance(names, list):
                    self.problems.append(f"{key}.{side_text} must be a list of block names")
                    continue
                for name in names:
                    bid = self.block(side, name, f"{key}.{side_text}")
                    if bid is None or not claim(bid, key):
                        continue
                    info = board.blocks[bid]
                    if info.type is BlockType.CLEOPATRA:
                        self.problems.append(f"{key}: Cleopatra never leaves the map; she changes sides instead (7.52)")
                    elif status is BlockStatus.DEAD and not info.is_leader:
                        self.problems.append(f"dead: {info.name} is not a leader; only leaders are killed (7.51)")
                    elif info.side is not side:
                        self.problems.append(f"{key}: {info.name} is {info.side}'s block")
                    else:
                        out[bid] = BlockState(info.side, None, info.min_strength, status)
        if "Cleopatra" not in where:
            holders = {out[b].side for b in out if out[b].loc == CLEOPATRA_HOME and out[b].status is BlockStatus.MAP}
            if Side.CAESAR in holders:
                self.problems.append(
                    f"Cleopatra is not placed and {CLEOPATRA_HOME} holds Caesar blocks; name her under one side"
                )
            cleo = board.blocks["Cleopatra"]
            out["Cleopatra"] = BlockState(Side.POMPEY, CLEOPATRA_HOME, cleo.max_strength, BlockStatus.MAP)
        return out

    def read_hands(self, turn: int, with_command: bool) -> dict[Side, list[str]] | None:
        if "hands" not in self.spec:
            return None
        out: dict[Side, list[str]] = {Side.CAESAR: [], Side.POMPEY: []}
        most = HAND_SIZE - turn - (1 if with_command else 0)
        for side_text, names in self.mapping("hands").items():
            side = self.side(side_text, "hands")
            if side is None:
                continue
            if isinstance(names, str) or not isinstance(names, list):
                self.problems.append(f"hands.{side_text} must be a list of card names")
                continue
            for n in names:
                c = self.card(n, f"hands.{side_text}")
                if c:
                    out[side].append(c)
            if 1 <= turn <= TURNS_PER_YEAR and len(names) > most:
                when = "after playing its card on" if with_command else "at the start of"
                self.problems.append(f"hands.{side_text}: {len(names)} cards; a hand holds at most {most} {when} turn {turn} (2.1)")
        if not with_command:
            for s in Side:
                if not out[s]:
                    self.problems.append(f"hands: {s} has no card to play (2.1)")
        return out

    def read_previous(self, turn: int) -> dict[Side, str]:
        out: dict[Side, str] = {}
        for side_text, name in self.mapping("previous").items():
            side = self.side(side_text, "previous")
            c = self.card(name, f"previous.{side_text}")
            if side and c:
                out[side] = c
        if out and turn == 1:
            self.problems.append("previous: on turn 1 no card was played before in this Year (C2)")
        elif turn > 1 and "previous" in self.spec and len(out) != 2:
            self.problems.append("previous: name the cards of both sides")
        if cards.APOLLO in out.values():
            self.problems.append("previous: give the card Apollo copied, not Apollo (C2)")
        return out

    def read_command(self, turn: int, year: int, options: Options) -> tuple[Side, dict[Side, str]] | None:
        cmd = self.spec.get("command")
        if not isinstance(cmd, Mapping):
            self.problems.append("command must be an object with \"cards\" and optionally \"player1\"")
            return None
        for k in sorted(set(cmd) - {"player1", "cards"}):
            self.problems.append(f"command: unknown key {k!r}; expected cards, player1")
        eff: dict[Side, str] = {}
        raw = cmd.get("cards")
        if not isinstance(raw, Mapping):
            self.problems.append("command.cards must name the effective card of each side")
            raw = {}
        for side_text, name in raw.items():
            side = self.side(side_text, "command.cards")
            c = self.card(name, f"command.cards.{side_text}")
            if side and c:
                eff[side] = c
        if len(eff) != 2:
            if raw:
                self.problems.append("command.cards: name the effective card of both sides")
            return None
        if any(c == cards.APOLLO for c in eff.values()):
            self.problems.append("command.cards: give the card Apollo copied, not Apollo (C2)")
            return None
        is_event = {s: self.board.card(eff[s]).event for s in Side}
        if all(is_event.values()):
            self.problems.append("command.cards: two events cancel each other and the game turn has no command phase (C3)")
            return None
        if options.tournament and year == self.board.setup_year and turn == 1:
            rule_p1, why = Side.CAESAR, "C5"
        elif is_event[Side.CAESAR] != is_event[Side.POMPEY]:
            rule_p1, why = (Side.CAESAR if is_event[Side.CAESAR] else Side.POMPEY), "C4: the event player"
        else:
            mv = {s: self.board.card(eff[s]).moves for s in Side}
            rule_p1 = Side.POMPEY if mv[Side.POMPEY] > mv[Side.CAESAR] else Side.CAESAR
            why = "C4: the higher Moves, Caesar on equal Moves"
        p1 = rule_p1
        if cmd.get("player1") is not None:
            given = self.side(cmd["player1"], "command.player1")
            if given is None:
                return None
            if given is not rule_p1:
                self.problems.append(f"command.player1 is {given}, but with these cards {rule_p1} is Player 1 ({why})")
                return None
            p1 = given
        return p1, eff


def _deal_after_play(g: Game, eff: Mapping[Side, str]) -> None:
    """No hands in a command spec: deal the rest of the Year's cards from the shuffled deck."""
    st = g.state
    deck = _rest_of_deck(g.board, Counter(eff.values()))
    st.rng.shuffle(deck, "deal")
    keep = HAND_SIZE - 1 - st.turn
    for s in Side:
        st.hands[s] = sorted(deck[:keep], key=cards.card_sort_key)
        del deck[:keep]
    st.deck = deck


def _rest_of_deck(board: Board, used: Counter[str]) -> list[str]:
    left = Counter(c.name for c in board.cards) - used
    return sorted(left.elements(), key=cards.card_sort_key)


def _roman(n: int) -> str:
    return {v: k for k, v in _ROMAN.items()}.get(n, str(n))


def _message(problems: list[str]) -> str:
    return f"the scenario has {len(problems)} problem(s):\n- " + "\n- ".join(problems)
