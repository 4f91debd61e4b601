"""The order language: one order per line, parsed and formatted.

Syntax-only layer (python-chess style): :func:`parse_order` turns one line into
an :data:`Order` or raises :class:`InvalidOrderError` / :class:`UnknownNameError`
/ :class:`AmbiguousOrderError`; ``str(order)`` is the canonical text and
``parse_order(str(o), side) == o``. Names are resolved here with the static board
only (the map and the block catalogue), never with the position, so parsing can
reveal nothing about the enemy. Checking orders against a position is done by
:mod:`pbem.games.caesar.steps.session`.

Grammar (keywords and names are case-insensitive; ``B`` a block, ``L`` a
location, ``C`` a card)::

    play C                 discard C              deploy L: B, B
    move L -> L [-> L]: B, B                       sea L -> SEA [-> SEA] -> L: B
    main L from L          levy B [at L]          levy step B
    jupiter L [: cleopatra] [-> L]                vulcan L
    no event               surprise L | surprise none               pass
    battles L, L
    battle L: retreat [round N] [when weaker] all|B, B -> [sea] L
    battle L: hits B, B    battle L: order B, B
    regroup L: B, B -> L
    winter: navis B -> L   winter: disband B, B
    fire B    pass B    retreat B -> [sea] L    hit B      (answers in interactive battles)
    language en|es|sv      (any step: the player's language, nothing else; pbem.core.languages)
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from pbem.core.languages import language_line
from pbem.core.mailing import mailing_line
from pbem.core.memo import ByIdentity
from pbem.core.orders import OrderProblem, order_lines
from pbem.errors import AmbiguousOrderError, InvalidOrderError, PbemError, UnknownNameError
from pbem.games.caesar.rules.board import BlockType, Board, Side, _norm, block_aliases, block_id, default_board


def _blocks(names: tuple[str, ...]) -> str:
    return ", ".join(names)


@dataclass(frozen=True)
class PlayCard:
    card: str

    def __str__(self) -> str:
        return f"play {self.card}"


@dataclass(frozen=True)
class DiscardCard:
    card: str

    def __str__(self) -> str:
        return f"discard {self.card}"


@dataclass(frozen=True)
class DeployOrder:
    location: str
    blocks: tuple[str, ...]

    def __str__(self) -> str:
        return f"deploy {self.location}: {_blocks(self.blocks)}"


@dataclass(frozen=True)
class MoveOrder:
    path: tuple[str, ...]
    blocks: tuple[str, ...]

    def __str__(self) -> str:
        return f"move {' -> '.join(self.path)}: {_blocks(self.blocks)}"


@dataclass(frozen=True)
class SeaOrder:
    path: tuple[str, ...]
    blocks: tuple[str, ...]

    def __str__(self) -> str:
        return f"sea {' -> '.join(self.path)}: {_blocks(self.blocks)}"


@dataclass(frozen=True)
class MainOrder:
    location: str
    origin: str

    def __str__(self) -> str:
        return f"main {self.location} from {self.origin}"


@dataclass(frozen=True)
class LevyOrder:
    block: str
    city: str | None = None

    def __str__(self) -> str:
        return f"levy {self.block}" + (f" at {self.city}" if self.city else "")


@dataclass(frozen=True)
class StepOrder:
    block: str

    def __str__(self) -> str:
        return f"levy step {self.block}"


@dataclass(frozen=True)
class JupiterOrder:
    target: str
    cleopatra: bool = False
    to: str | None = None

    def __str__(self) -> str:
        return f"jupiter {self.target}" + (": Cleopatra" if self.cleopatra else "") + (f" -> {self.to}" if self.to else "")


@dataclass(frozen=True)
class VulcanOrder:
    target: str

    def __str__(self) -> str:
        return f"vulcan {self.target}"


@dataclass(frozen=True)
class NoEventOrder:
    def __str__(self) -> str:
        return "no event"


@dataclass(frozen=True)
class SurpriseOrder:
    location: str | None

    def __str__(self) -> str:
        return f"surprise {self.location or 'none'}"


@dataclass(frozen=True)
class PassOrder:
    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True)
class BattlesOrder:
    locations: tuple[str, ...]

    def __str__(self) -> str:
        return f"battles {', '.join(self.locations)}"


@dataclass(frozen=True)
class RetreatPlan:
    """Blocks (empty = all) retreat from ``round`` on (None: from Round 2), optionally only when weaker."""

    location: str
    blocks: tuple[str, ...]
    to: str
    round: int | None = None
    when_weaker: bool = False
    by_sea: bool = False

    def __str__(self) -> str:
        parts = [f"battle {self.location}: retreat"]
        if self.round is not None:
            parts.append(f"round {self.round}")
        if self.when_weaker:
            parts.append("when weaker")
        parts.append(_blocks(self.blocks) if self.blocks else "all")
        return " ".join(parts) + f" -> {'sea ' if self.by_sea else ''}{self.to}"


@dataclass(frozen=True)
class HitsPlan:
    location: str
    blocks: tuple[str, ...]

    def __str__(self) -> str:
        return f"battle {self.location}: hits {_blocks(self.blocks)}"


@dataclass(frozen=True)
class OrderPlan:
    location: str
    blocks: tuple[str, ...]

    def __str__(self) -> str:
        return f"battle {self.location}: order {_blocks(self.blocks)}"


@dataclass(frozen=True)
class RegroupPlan:
    location: str
    blocks: tuple[str, ...]
    to: str

    def __str__(self) -> str:
        return f"regroup {self.location}: {_blocks(self.blocks)} -> {self.to}"


@dataclass(frozen=True)
class WinterNavis:
    block: str
    port: str

    def __str__(self) -> str:
        return f"winter: navis {self.block} -> {self.port}"


@dataclass(frozen=True)
class WinterDisband:
    blocks: tuple[str, ...]

    def __str__(self) -> str:
        return f"winter: disband {_blocks(self.blocks)}"


@dataclass(frozen=True)
class FireOrder:
    block: str

    def __str__(self) -> str:
        return f"fire {self.block}"


@dataclass(frozen=True)
class PassBlockOrder:
    block: str

    def __str__(self) -> str:
        return f"pass {self.block}"


@dataclass(frozen=True)
class RetreatOrder:
    block: str
    to: str
    by_sea: bool = False

    def __str__(self) -> str:
        return f"retreat {self.block} -> {'sea ' if self.by_sea else ''}{self.to}"


@dataclass(frozen=True)
class HitOrder:
    block: str

    def __str__(self) -> str:
        return f"hit {self.block}"


Order = (PlayCard | DiscardCard | DeployOrder | MoveOrder | SeaOrder | MainOrder | LevyOrder | StepOrder |
    JupiterOrder | VulcanOrder | NoEventOrder | SurpriseOrder | PassOrder | BattlesOrder | RetreatPlan |
    HitsPlan | OrderPlan | RegroupPlan | WinterNavis | WinterDisband | FireOrder | PassBlockOrder |
    RetreatOrder | HitOrder)

PLAN_TYPES = (BattlesOrder, RetreatPlan, HitsPlan, OrderPlan, RegroupPlan)
WINTER_TYPES = (WinterNavis, WinterDisband)
STANDING_TYPES = PLAN_TYPES + WINTER_TYPES
ANSWER_TYPES = (FireOrder, PassBlockOrder, RetreatOrder, HitOrder)


# ---- names ---------------------------------------------------------------------


def block_display(board: Board, bid: str, owner: Side) -> str:
    """The name ``owner`` writes for block ``bid`` (a defector carries its origin)."""
    info = board.blocks[bid]
    if info.type is BlockType.CLEOPATRA or info.side is owner:
        return info.name
    return f"{info.side.value} {info.name}"


def block_from_display(board: Board, name: str, owner: Side) -> str:
    """Inverse of :func:`block_display`: the block id."""
    if name == "Cleopatra":
        return "Cleopatra"
    for side in Side:
        prefix = side.value + " "
        if side is owner.enemy and name.startswith(prefix):
            return block_id(side, name[len(prefix):])
    return block_id(owner, name)


_ROMAN_TAIL = re.compile(r"^(.*\S)\s+([IVXLC]+)$", re.I)
_ROMAN_VALUE = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}


def _arabic(text: str) -> str:
    """``"Legio XIII"`` -> ``"Legio 13"``: legions are often written with Roman numerals."""
    m = _ROMAN_TAIL.match(text.strip())
    if not m:
        return text
    digits = [_ROMAN_VALUE[ch] for ch in m.group(2).upper()]
    total = sum(-d if i + 1 < len(digits) and d < digits[i + 1] else d for i, d in enumerate(digits))
    return f"{m.group(1)} {total}"


#: The names each board resolved so far, per (side, normalized spelling): the same few spellings come
#: in every submission, and finding one walks the whole catalogue. A name that resolves to nothing is
#: not kept (it raises, with suggestions made from ``text``). Kept per board as the map's layouts are;
#: the memo starts afresh past _BOARDS_KEPT boards (a game uses one; tests make many).
_BOARDS_KEPT = 8
_RESOLVED: ByIdentity[Board, dict[tuple[Side, str], str]] = ByIdentity(lambda board: {}, _BOARDS_KEPT)


def resolve_block_name(board: Board, side: Side, text: str) -> str:
    """A block name as ``side`` may write it, resolved with the static catalogue only."""
    text = _arabic(text)
    key = _norm(text)
    if not key:
        raise InvalidOrderError("a block name is missing")
    known = _RESOLVED(board)
    found = known.get((side, key))
    if found is None:
        found = known[(side, key)] = _resolve_block_key(board, side, text, key)
    return found


def _resolve_block_key(board: Board, side: Side, text: str, key: str) -> str:
    enemy = side.enemy
    own, foreign, unique_foreign = None, None, []
    enemy_key = _norm(enemy.value)
    for info in board.blocks.values():
        aliases = block_aliases(info)
        if info.type is BlockType.CLEOPATRA:
            if key in aliases:
                return "Cleopatra"
            continue
        if info.side is side and key in aliases:
            own = info.name
        elif info.side is enemy:
            if key.startswith(enemy_key) and key[len(enemy_key):] in aliases:
                foreign = f"{enemy.value} {info.name}"
            elif key in aliases:  # the enemy's name for a block (a legion, a leader...): said as such
                unique_foreign.append(f"{enemy.value} {info.name}")
    if own:
        return own
    if foreign:
        return foreign
    if len(unique_foreign) == 1:
        return unique_foreign[0]
    names = [b.name for b in board.blocks.values() if b.side is side and b.type is not BlockType.CLEOPATRA]
    raise UnknownNameError(f"{side} block", text.strip(), board._suggest(text, names + ["Cleopatra"]))


def resolve_card(board: Board, text: str) -> str:
    t = text.strip().replace(" ", "")
    return board.card(t).name


# ---- parsing -------------------------------------------------------------------


_ARROW = re.compile(r"\s*(?:->|→|=>)\s*")
_SPACE = re.compile(r"\s+")

# ---- keywords in Spanish and Swedish -------------------------------------------------
#
# The words of the official Spanish and Swedish rulebooks for each English keyword (README, "The
# order language"), matched as whole words without regard to case or accents. None of them is a
# place, block or card name or a word of one (a test checks the board), so a line may mix them with
# names freely; the English keywords keep working in every language.

_KEYWORDS: dict[str, str] = {
    # Spanish
    "descartar": "discard", "jugar": "play", "mover": "move", "anfibio": "sea", "naval": "sea",
    "principal": "main", "desde": "from", "leva": "levy", "reclutar": "levy", "en": "at", "paso": "step",
    "jupiter": "jupiter", "vulcano": "vulcan", "sorpresa": "surprise", "pasar": "pass", "batallas": "battles",
    "batalla": "battle", "retirar": "retreat", "retirarse": "retreat", "ronda": "round", "todos": "all",
    "impactos": "hits", "impacto": "hit", "orden": "order", "reagrupar": "regroup", "reagruparse": "regroup",
    "disparar": "fire", "invierno": "winter", "disolver": "disband", "desplegar": "deploy",
    # Swedish
    "kasta": "discard", "spela": "play", "flytta": "move", "skeppa": "sea", "hav": "sea", "huvud": "main",
    "fran": "from", "rekrytera": "levy", "vid": "at", "steg": "step", "overraskning": "surprise",
    "passa": "pass", "strider": "battles", "strid": "battle", "retirera": "retreat", "rond": "round",
    "alla": "all", "traffar": "hits", "traff": "hit", "ordning": "order", "omgruppera": "regroup",
    "sla": "fire", "vinter": "winter", "upplos": "disband", "upplosa": "disband", "placera": "deploy",
}
_PHRASES: dict[tuple[str, str], str] = {
    ("ningun", "evento"): "no event", ("ingen", "handelse"): "no event",
    ("cuando", "inferior"): "when weaker", ("om", "svagare"): "when weaker",
}
_WORD = re.compile(r"[^\W\d_]+")


def _plain(word: str) -> str:
    """Lower case without accents: ``"Ningún"`` -> ``"ningun"``, ``"upplös"`` -> ``"upplos"``."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(c))


def english_keywords(line: str) -> str:
    """``line`` with its Spanish and Swedish keywords written in English (everything else as it is)."""
    words = list(_WORD.finditer(line))
    if not words:
        return line
    out: list[str] = []
    pos = 0
    i = 0
    while i < len(words):
        m = words[i]
        plain = _plain(m.group())
        if i + 1 < len(words) and line[m.end():words[i + 1].start()].isspace():
            phrase = _PHRASES.get((plain, _plain(words[i + 1].group())))
            if phrase is not None:
                out += [line[pos:m.start()], phrase]
                pos = words[i + 1].end()
                i += 2
                continue
        english = _KEYWORDS.get(plain)
        if english is not None and not (english == plain and m.group().isascii()):  # "Jupiter" stays as written
            out += [line[pos:m.start()], english]
            pos = m.end()
        i += 1
    out.append(line[pos:])
    return "".join(out)


def _split_list(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(r",|\band\b", text)]
    return [p for p in parts if p]


class _Parser:
    def __init__(self, board: Board, side: Side) -> None:
        self.board = board
        self.side = side
        # unknown or ambiguous names met on the line being parsed: every one is reported, so a
        # misspelled city does not hide a second misspelling on the same line
        self.problems: list[PbemError] = []

    def loc(self, text: str) -> str:
        t = text.strip()
        if not t:
            raise InvalidOrderError("a location is missing")
        try:
            return self.board.resolve_space(t)
        except (UnknownNameError, AmbiguousOrderError) as exc:
            self.problems.append(exc)
            return t

    def block(self, text: str) -> str:
        try:
            return resolve_block_name(self.board, self.side, text)
        except (UnknownNameError, AmbiguousOrderError) as exc:
            self.problems.append(exc)
            return text.strip()

    def origin_of(self, line: str) -> str | None:
        """The first place of a move or sea line, when it names a real one (even if the rest is wrong)."""
        m = re.match(r"\s*(?:move|sea)\s+(.+?)\s*(?:->|→|=>)", english_keywords(line), re.I)
        if not m:
            return None
        try:
            return self.board.resolve_space(m.group(1))
        except PbemError:
            return None

    def blocks(self, text: str, what: str) -> tuple[str, ...]:
        items = _split_list(text)
        if not items:
            raise InvalidOrderError(f"no blocks named after ':' ; write {what}")
        out = tuple(self.block(i) for i in items)
        dup = sorted({b for b in out if out.count(b) > 1})
        if dup:
            raise InvalidOrderError(f"{', '.join(dup)} named twice")
        return out

    def path(self, text: str) -> tuple[str, ...]:
        parts = _ARROW.split(text.strip())
        if len(parts) < 2 or any(not p for p in parts):
            raise InvalidOrderError("a path needs at least two locations joined by '->', like 'Genua -> Roma'")
        return tuple(self.loc(p) for p in parts)

    def parse(self, line: str) -> Order:
        text = _SPACE.sub(" ", english_keywords(line).strip())
        if not text:
            raise InvalidOrderError("empty order")
        word, _, rest = text.partition(" ")
        w = word.lower().rstrip(":")
        rest = rest.strip()
        handler = getattr(self, f"p_{w}", None)
        if handler is None:
            known = sorted(n[2:] for n in dir(self) if n.startswith("p_"))
            hint = self.board._suggest(w, known)
            raise InvalidOrderError(
                f"unknown order {word!r}"
                + (f"; did you mean {' or '.join(repr(h) for h in hint)}?" if hint else "")
                + f" Orders start with one of: {', '.join(known)}"
            )
        self.problems = []
        try:
            result: Order = handler(rest)
        except PbemError as exc:
            if not self.problems:
                raise
            self.problems.append(exc)
        if len(self.problems) == 1:
            raise self.problems[0]
        if self.problems:
            raise InvalidOrderError("; ".join(str(e) for e in self.problems))
        return result

    def _need(self, rest: str, form: str) -> None:
        if not rest:
            raise InvalidOrderError(f"incomplete order; write '{form}'")

    def p_play(self, rest: str) -> Order:
        self._need(rest, "play CARD (for example 'play 3/2' or 'play Mars')")
        return PlayCard(resolve_card(self.board, rest))

    def p_discard(self, rest: str) -> Order:
        self._need(rest, "discard CARD")
        return DiscardCard(resolve_card(self.board, rest))

    def p_deploy(self, rest: str) -> Order:
        loc, sep, blocks = rest.partition(":")
        if not sep:
            raise InvalidOrderError("write 'deploy CITY: BLOCK, BLOCK'")
        return DeployOrder(self.loc(loc), self.blocks(blocks, "deploy CITY: BLOCK, BLOCK"))

    def p_move(self, rest: str) -> Order:
        path, sep, blocks = rest.partition(":")
        if not sep:
            raise InvalidOrderError("write 'move FROM -> TO: BLOCK, BLOCK' (a colon before the blocks)")
        return MoveOrder(self.path(path), self.blocks(blocks, "move FROM -> TO: BLOCK, BLOCK"))

    def p_sea(self, rest: str) -> Order:
        path, sep, blocks = rest.partition(":")
        if not sep:
            raise InvalidOrderError("write 'sea PORT -> SEA -> PORT: BLOCK, BLOCK'")
        p = self.path(path)
        if len(p) < 3:
            raise InvalidOrderError("an amphibious move goes port -> sea [-> sea] -> port")
        return SeaOrder(p, self.blocks(blocks, "sea PORT -> SEA -> PORT: BLOCK"))

    def p_main(self, rest: str) -> Order:
        m = re.fullmatch(r"(.+?)\s+from\s+(.+)", rest, re.I)
        if not m:
            raise InvalidOrderError("write 'main LOCATION from ORIGIN' (the road of the Main Attack)")
        return MainOrder(self.loc(m.group(1)), self.loc(m.group(2)))

    def p_levy(self, rest: str) -> Order:
        self._need(rest, "levy BLOCK [at CITY] or levy step BLOCK")
        m = re.fullmatch(r"step\s+(.+)", rest, re.I)
        if m:
            return StepOrder(self.block(m.group(1)))
        m = re.fullmatch(r"(.+?)\s+(?:at|in)\s+(.+)", rest, re.I)
        if m:
            return LevyOrder(self.block(m.group(1)), self.loc(m.group(2)))
        return LevyOrder(self.block(rest))

    def p_step(self, rest: str) -> Order:
        self._need(rest, "levy step BLOCK")
        return StepOrder(self.block(rest))

    def p_jupiter(self, rest: str) -> Order:
        self._need(rest, "jupiter CITY [: Cleopatra] [-> CITY]")
        to = None
        parts = _ARROW.split(rest)
        if len(parts) == 2:
            rest, to = parts[0], self.loc(parts[1])
        elif len(parts) > 2:
            raise InvalidOrderError("write 'jupiter CITY [-> DESTINATION]'")
        target, sep, who = rest.partition(":")
        cleo = False
        if sep:
            if _norm(who) not in ("cleopatra", "cleo"):
                raise InvalidOrderError("after 'jupiter CITY:' only 'Cleopatra' may be named; the block is drawn at random")
            cleo = True
        return JupiterOrder(self.loc(target), cleo, to)

    def p_vulcan(self, rest: str) -> Order:
        self._need(rest, "vulcan CITY")
        return VulcanOrder(self.loc(rest))

    def p_no(self, rest: str) -> Order:
        if rest.lower() != "event":
            raise InvalidOrderError("did you mean 'no event'?")
        return NoEventOrder()

    def p_surprise(self, rest: str) -> Order:
        self._need(rest, "surprise LOCATION or surprise none")
        if rest.lower() == "none":
            return SurpriseOrder(None)
        return SurpriseOrder(self.loc(rest))

    def p_pass(self, rest: str) -> Order:
        if not rest:
            return PassOrder()
        return PassBlockOrder(self.block(rest))

    def p_battles(self, rest: str) -> Order:
        items = _split_list(rest)
        if not items:
            raise InvalidOrderError("write 'battles LOCATION, LOCATION' in the order you want them fought")
        locs = tuple(self.loc(i) for i in items)
        if len(set(locs)) != len(locs):
            raise InvalidOrderError("a battle is named twice")
        return BattlesOrder(locs)

    def p_battle(self, rest: str) -> Order:
        loc, sep, body = rest.partition(":")
        if not sep:
            raise InvalidOrderError("write 'battle LOCATION: retreat ...', 'battle LOCATION: hits ...' or 'battle LOCATION: order ...'")
        location = self.loc(loc)
        body = body.strip()
        word, _, tail = body.partition(" ")
        w = word.lower()
        if w == "hits":
            return HitsPlan(location, self.blocks(tail, "battle LOCATION: hits BLOCK, BLOCK"))
        if w == "order":
            return OrderPlan(location, self.blocks(tail, "battle LOCATION: order BLOCK, BLOCK"))
        if w != "retreat":
            raise InvalidOrderError(f"unknown battle plan {word!r}; use retreat, hits or order")
        parts = _ARROW.split(tail)
        if len(parts) != 2:
            raise InvalidOrderError("write 'battle LOCATION: retreat [round N] [when weaker] all|BLOCKS -> [sea] DESTINATION'")
        who, dest = parts[0].strip(), parts[1].strip()
        rnd: int | None = None
        m = re.match(r"round\s+(\S+)\s*", who, re.I)
        if m:
            try:
                rnd = int(m.group(1))
            except ValueError:
                raise InvalidOrderError(f"round {m.group(1)!r} must be 2, 3 or 4") from None
            if rnd not in (2, 3, 4):
                raise InvalidOrderError(f"round {rnd}: retreats are possible in rounds 2, 3 and 4 (7.6)")
            who = who[m.end():]
        weaker = False
        m = re.match(r"when\s+weaker\s*", who, re.I)
        if m:
            weaker = True
            who = who[m.end():]
        blocks: tuple[str, ...] = () if who.strip().lower() in ("all", "") else self.blocks(who, "all or BLOCK, BLOCK")
        by_sea = False
        m = re.match(r"sea\s+(.+)", dest, re.I)
        if m:
            by_sea, dest = True, m.group(1)
        return RetreatPlan(location, blocks, self.loc(dest), rnd, weaker, by_sea)

    def p_regroup(self, rest: str) -> Order:
        loc, sep, body = rest.partition(":")
        parts = _ARROW.split(body)
        if not sep or len(parts) != 2:
            raise InvalidOrderError("write 'regroup BATTLE: BLOCK, BLOCK -> DESTINATION'")
        return RegroupPlan(self.loc(loc), self.blocks(parts[0], "regroup BATTLE: BLOCK -> DESTINATION"), self.loc(parts[1]))

    def p_winter(self, rest: str) -> Order:
        rest = rest.lstrip(":").strip()
        word, _, tail = rest.partition(" ")
        if word.lower() == "navis":
            parts = _ARROW.split(tail)
            if len(parts) != 2:
                raise InvalidOrderError("write 'winter: navis NAVIS -> PORT'")
            return WinterNavis(self.block(parts[0]), self.loc(parts[1]))
        if word.lower() == "disband":
            return WinterDisband(self.blocks(tail, "winter: disband BLOCK, BLOCK"))
        raise InvalidOrderError("write 'winter: navis NAVIS -> PORT' or 'winter: disband BLOCK, BLOCK'")

    def p_fire(self, rest: str) -> Order:
        self._need(rest, "fire BLOCK")
        return FireOrder(self.block(rest))

    def p_retreat(self, rest: str) -> Order:
        parts = _ARROW.split(rest)
        if len(parts) != 2:
            raise InvalidOrderError("write 'retreat BLOCK -> [sea] DESTINATION'")
        dest = parts[1].strip()
        by_sea = False
        m = re.match(r"sea\s+(.+)", dest, re.I)
        if m:
            by_sea, dest = True, m.group(1)
        return RetreatOrder(self.block(parts[0]), self.loc(dest), by_sea)

    def p_hit(self, rest: str) -> Order:
        self._need(rest, "hit BLOCK")
        return HitOrder(self.block(rest))


def parse_order(line: str, side: Side, board: Board | None = None) -> Order:
    """Parse one order line for ``side`` (raises an error naming what is wrong)."""
    return _Parser(board or default_board(), side).parse(line)


@dataclass(frozen=True)
class OrderError(OrderProblem):
    """A problem of one line (:class:`~pbem.core.orders.OrderProblem`), and for a move line that did
    not parse the place it would activate (6.1), so the other lines can still be checked."""

    origin: str | None = None
    unknown_blocks: tuple[str, ...] = ()  # block names of the line that match none of the side's blocks


@dataclass(frozen=True)
class OrderLine:
    lineno: int
    text: str
    order: Order


def parse_orders(text: str, side: Side, board: Board | None = None) -> tuple[list[OrderLine], list[OrderError]]:
    """Parse every line; returns the orders and every error (never raises for bad text).

    What comes out depends on the text, the side and the board alone, and a submission is parsed
    several times on its way (checked, warned about, sealed, replayed when the next one comes), so
    the last results are remembered (lists are new on every call; their items are frozen)."""
    board = board or default_board()
    key = (text, side, id(board))
    got = _PARSED.get(key)
    if got is None or got[0] is not board:  # (the entry holds its board: an id is never reused while cached)
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()
        got = _PARSED[key] = (board, *_parse_orders(text, side, board))
    return list(got[1]), list(got[2])


_PARSED: dict[tuple[str, Side, int], tuple[Board, tuple[OrderLine, ...], tuple[OrderError, ...]]] = {}
_PARSED_LIMIT = 512


def _parse_orders(text: str, side: Side, board: Board) -> tuple[tuple[OrderLine, ...], tuple[OrderError, ...]]:
    p = _Parser(board, side)
    orders: list[OrderLine] = []
    errors: list[OrderError] = []
    for lineno, line in order_lines(text):
        try:
            if language_line(line) is not None:  # the player's language: no order of the game (pbem.core.languages)
                continue
            if mailing_line(line) is not None:  # which steps he gets mail for (pbem.core.mailing)
                continue
        except ValueError as exc:
            errors.append(OrderError(lineno, line, str(exc)))
            continue
        try:
            orders.append(OrderLine(lineno, line, p.parse(line)))
        except PbemError as exc:
            unknown = tuple(e.name for e in p.problems if isinstance(e, UnknownNameError) and e.kind == f"{side} block")
            errors.append(OrderError(lineno, line, str(exc), p.origin_of(line), unknown))
    return tuple(orders), tuple(errors)


def format_orders(orders: list[Order]) -> str:
    return "".join(f"{o}\n" for o in orders)


__all__ = [
    "Order", "OrderLine", "OrderError", "parse_order", "parse_orders", "format_orders", "order_lines",
    "AmbiguousOrderError",
]
