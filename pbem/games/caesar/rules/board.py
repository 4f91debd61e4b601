"""Board facts of Julius Caesar: map, roads, blocks, cards and set-up.

The facts live in ``data/board.json`` inside the package (transcribed from the
publisher's map and rulebook); this module loads them into immutable lookup
tables, resolves names the way players write them, and validates the data.

Pure: reading the packaged data file is the only I/O, done once at import of
:func:`default_board` through :mod:`importlib.resources`.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import cache, cached_property
from importlib import resources
from typing import Any

from pbem.errors import AmbiguousOrderError, BoardDataError, UnknownNameError


class Side(str, Enum):
    """The two players. Values are the names used in files and reports."""

    CAESAR = "Caesar"
    POMPEY = "Pompey"

    @property
    def enemy(self) -> Side:
        return _POMPEY if self is _CAESAR else _CAESAR  # module names: an Enum class's attribute is slow to read

    def __str__(self) -> str:  # the value (read from the member, not through Enum's ``value`` property)
        return self._value_

    def __format__(self, spec: str) -> str:  # what Enum.__format__ gives (the value, as __str__), without its detour
        return format(self._value_, spec)

    @classmethod
    def parse(cls, text: str) -> Side:
        t = text.strip().lower()
        for s in cls:
            if s.value.lower() == t:
                return s
        raise UnknownNameError("side", text, tuple(s.value for s in cls))


#: the two sides in :class:`Side`'s order, as a tuple (iterating an Enum class runs a generator)
SIDES: tuple[Side, Side] = (Side.CAESAR, Side.POMPEY)
_CAESAR, _POMPEY = SIDES


class SpaceKind(str, Enum):
    CITY = "city"
    PORT = "port"
    MAJOR_PORT = "major-port"
    SEA = "sea"


class EdgeKind(str, Enum):
    MAJOR = "major"
    MINOR = "minor"
    STRAIT = "strait"
    SEA = "sea"


class BlockType(str, Enum):
    LEADER = "leader"
    LEGION = "legion"
    AUXILIA = "auxilia"
    EQUITATUS = "equitatus"
    ELEPHANT = "elephant"
    BALLISTA = "ballista"
    NAVIS = "navis"
    CLEOPATRA = "cleopatra"


#: Road limits per player per command phase (6.11), and with Pluto for attacks (E6).
ROAD_LIMIT: Mapping[EdgeKind, int] = {EdgeKind.MAJOR: 4, EdgeKind.MINOR: 2, EdgeKind.STRAIT: 2}
PLUTO_LIMIT: Mapping[EdgeKind, int] = {EdgeKind.MAJOR: 6, EdgeKind.MINOR: 3, EdgeKind.STRAIT: 2}
#: Straits allow one block when the destination is Enemy or Contested (M3).
STRAIT_ATTACK_LIMIT = 1


def road_limit(kind: EdgeKind, *, attacking: bool, pluto: bool = False) -> int:
    """How many of one player's blocks a road or strait carries in a game turn (6.11, M3, E6)."""
    if pluto and attacking:
        return PLUTO_LIMIT[kind]
    if kind is EdgeKind.STRAIT and attacking:
        return STRAIT_ATTACK_LIMIT
    return ROAD_LIMIT[kind]


@dataclass(frozen=True)
class Space:
    name: str
    kind: SpaceKind
    vp: int
    x: int
    y: int
    aliases: tuple[str, ...] = ()
    island: str | None = None

    # computed once per space (a cached_property is read back as a plain attribute)
    @cached_property
    def is_sea(self) -> bool:
        return self.kind is SpaceKind.SEA

    @cached_property
    def is_port(self) -> bool:
        return self.kind in (SpaceKind.PORT, SpaceKind.MAJOR_PORT)

    @cached_property
    def is_major_port(self) -> bool:
        return self.kind is SpaceKind.MAJOR_PORT


@dataclass(frozen=True)
class Edge:
    a: str
    b: str
    kind: EdgeKind

    @property
    def key(self) -> tuple[str, str]:
        """Direction-free key used to count road use (both directions together, M3)."""
        return (self.a, self.b) if self.a < self.b else (self.b, self.a)

    def other(self, name: str) -> str:
        return self.b if name == self.a else self.a


@dataclass(frozen=True)
class Combat:
    """Initiative letter and firepower, e.g. ``A3``."""

    letter: str
    fire: int

    @classmethod
    def parse(cls, text: str) -> Combat:
        m = re.fullmatch(r"([A-D])([1-6])", text)
        if not m:
            raise BoardDataError(f"bad combat rating {text!r}; expected a letter A-D and a digit, like 'C3'")
        return cls(m.group(1), int(m.group(2)))

    def __str__(self) -> str:
        return f"{self.letter}{self.fire}"


@dataclass(frozen=True)
class BlockInfo:
    """The printed facts of one block (never changes during a game)."""

    id: str
    side: Side  # starting side (Cleopatra starts with Pompey)
    name: str
    type: BlockType
    max_strength: int
    attack: Combat
    defend: Combat
    levy_city: str | None = None
    steps: tuple[int, ...] = ()

    # the facts derived from the printed ones are computed once per block (a cached_property is
    # read back as a plain attribute: the engine asks them for nearly every choice)
    @cached_property
    def min_strength(self) -> int:
        return self.steps[-1] if self.steps else 1

    @cached_property
    def is_navis(self) -> bool:
        return self.type is BlockType.NAVIS

    @cached_property
    def is_leader(self) -> bool:
        return self.type is BlockType.LEADER

    def strengths(self) -> tuple[int, ...]:
        """Every strength the block can stand at, highest first."""
        if self.steps:
            return self.steps
        return tuple(range(self.max_strength, 0, -1))

    def step_up(self, strength: int) -> int | None:
        """The strength after one levy step, or None at full strength."""
        try:
            return self._ups[strength]
        except KeyError:
            raise ValueError(f"{strength} is not a strength of {self.name} ({self.strengths()})") from None

    @cached_property
    def _ups(self) -> Mapping[int, int | None]:
        s = self.strengths()
        return {x: (s[i - 1] if i > 0 else None) for i, x in enumerate(s)}

    def step_down(self, strength: int) -> int:
        """The strength after one hit; 0 means eliminated."""
        s = self.strengths()
        i = s.index(strength)
        return s[i + 1] if i + 1 < len(s) else 0


@dataclass(frozen=True)
class CardInfo:
    name: str
    event: bool
    moves: int = 0
    levies: int = 0


def block_id(side: Side | str, name: str) -> str:
    """Stable identifier of a block: ``"Caesar:Legio 8"``; Cleopatra is ``"Cleopatra"``."""
    if name == "Cleopatra":
        return "Cleopatra"
    return f"{Side(side).value}:{name}"


_NORM_RE = re.compile(r"[\s._\-']+")


def _norm(text: str) -> str:
    return _NORM_RE.sub("", text.strip().lower())


_SHORT_FORMS = {
    BlockType.LEGION: ("l", "leg", "legio", "legion"),
    BlockType.EQUITATUS: ("e", "eq", "equ", "equitatus", "cav"),
    BlockType.AUXILIA: ("a", "aux", "auxilia"),
    BlockType.NAVIS: ("n", "nav", "navis", "ship"),
}


@cache  # a BlockInfo is frozen; names are resolved against every block, often
def block_aliases(info: BlockInfo) -> tuple[str, ...]:
    """Every normalized spelling a player may use for ``info`` (own side implied)."""
    out = {_norm(info.name)}
    m = re.fullmatch(r"(\w+) (\d+)", info.name)
    if m and info.type in _SHORT_FORMS:
        for prefix in _SHORT_FORMS[info.type]:
            out.add(prefix + m.group(2))
    if info.type is BlockType.BALLISTA:
        out.update({"ball", "bal"})
    if info.type is BlockType.ELEPHANT:
        out.update({"eleph", "el"})
    if info.type is BlockType.CLEOPATRA:
        out.update({"cleo"})
    return tuple(sorted(out))


def short_name(info: BlockInfo) -> str:
    """The compact form used in tables: ``L8``, ``Eq1``, ``Aux3``, ``N2``."""
    m = re.fullmatch(r"(\w+) (\d+)", info.name)
    if m and info.type in _SHORT_FORMS:
        prefix = {BlockType.LEGION: "L", BlockType.EQUITATUS: "Eq", BlockType.AUXILIA: "Aux", BlockType.NAVIS: "N"}[info.type]
        return prefix + m.group(2)
    return info.name


@dataclass(frozen=True)
class Board:
    """Immutable board facts with fast lookups. Build with :meth:`from_dict`."""

    spaces: Mapping[str, Space]
    edges: tuple[Edge, ...]
    blocks: Mapping[str, BlockInfo]
    cards: tuple[CardInfo, ...]
    setup_year: int
    setup_map: Mapping[Side, Mapping[str, tuple[str, ...]]]
    setup_pool: Mapping[Side, tuple[str, ...]]
    # derived tables
    roads: Mapping[str, tuple[Edge, ...]] = field(default_factory=dict)  # land edges per city
    sea_edges: Mapping[str, tuple[Edge, ...]] = field(default_factory=dict)  # sea edges per space
    _names: Mapping[str, str] = field(default_factory=dict)

    # ---- construction -------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, check: bool = True) -> Board:
        problems: list[str] = []
        spaces: dict[str, Space] = {}
        for raw in data.get("spaces", []):
            try:
                sp = Space(
                    name=raw["name"],
                    kind=SpaceKind(raw["type"]),
                    vp=int(raw.get("vp", 0)),
                    x=int(raw["x"]),
                    y=int(raw["y"]),
                    aliases=tuple(raw.get("aliases", ())),
                    island=raw.get("island"),
                )
            except (KeyError, ValueError) as exc:
                problems.append(f"space {raw!r}: {exc}")
                continue
            if sp.name in spaces:
                problems.append(f"space {sp.name!r} is listed twice")
            spaces[sp.name] = sp
        edges: list[Edge] = []
        for raw in data.get("edges", []):
            try:
                edges.append(Edge(raw["a"], raw["b"], EdgeKind(raw["type"])))
            except (KeyError, ValueError) as exc:
                problems.append(f"edge {raw!r}: {exc}")
        blocks: dict[str, BlockInfo] = {}
        for raw in data.get("blocks", []):
            try:
                side = Side(raw["side"])
                combat = raw["combat"]
                if isinstance(combat, dict):
                    attack, defend = Combat.parse(combat["attacking"]), Combat.parse(combat["defending"])
                else:
                    attack = defend = Combat.parse(combat)
                info = BlockInfo(
                    id=block_id(side, raw["name"]),
                    side=side,
                    name=raw["name"],
                    type=BlockType(raw["type"]),
                    max_strength=int(raw["max_strength"]),
                    attack=attack,
                    defend=defend,
                    levy_city=raw.get("levy_city"),
                    steps=tuple(raw.get("steps", ())),
                )
            except (KeyError, ValueError, BoardDataError) as exc:
                problems.append(f"block {raw!r}: {exc}")
                continue
            if info.id in blocks:
                problems.append(f"block {info.id!r} is listed twice")
            blocks[info.id] = info
        cards: list[CardInfo] = []
        for raw in data.get("cards", []):
            if raw.get("event"):
                cards.append(CardInfo(raw["name"], True))
            else:
                cards.append(CardInfo(raw["name"], False, int(raw["moves"]), int(raw["levies"])))
        setup = data.get("setup", {})
        setup_map = {
            Side(side): {loc: tuple(names) for loc, names in locs.items()}
            for side, locs in setup.get("map", {}).items()
        }
        setup_pool = {Side(side): tuple(names) for side, names in setup.get("levy_pool", {}).items()}
        roads: dict[str, list[Edge]] = {name: [] for name in spaces}
        sea_edges: dict[str, list[Edge]] = {name: [] for name in spaces}
        for e in edges:
            for end in (e.a, e.b):
                if end not in spaces:
                    continue
                (sea_edges if e.kind is EdgeKind.SEA else roads)[end].append(e)
        names: dict[str, str] = {}
        for sp in spaces.values():
            for alias in (sp.name, *sp.aliases):
                key = _norm(alias)
                if key in names and names[key] != sp.name:
                    problems.append(f"name {alias!r} is used by both {names[key]!r} and {sp.name!r}")
                names[key] = sp.name
        board = cls(
            spaces=spaces,
            edges=tuple(edges),
            blocks=blocks,
            cards=tuple(cards),
            setup_year=int(setup.get("year", 705)),
            setup_map=setup_map,
            setup_pool=setup_pool,
            roads={k: tuple(sorted(v, key=lambda e: e.other(k))) for k, v in roads.items()},
            sea_edges={k: tuple(sorted(v, key=lambda e: e.other(k))) for k, v in sea_edges.items()},
            _names=names,
        )
        if check:
            problems.extend(board.problems())
            if problems:
                raise BoardDataError("board data is inconsistent:\n- " + "\n- ".join(problems))
        return board

    # ---- validation ---------------------------------------------------
    def problems(self) -> list[str]:
        """Every inconsistency in the data, all at once (empty list when sound)."""
        out: list[str] = []
        seen: set[tuple[str, str]] = set()
        for e in self.edges:
            for end in (e.a, e.b):
                if end not in self.spaces:
                    out.append(f"edge {e.a}-{e.b} names unknown space {end!r}")
            if e.a == e.b:
                out.append(f"edge {e.a}-{e.b} joins a space to itself")
            if e.key in seen:
                out.append(f"edge {e.a}-{e.b} is listed twice (or in both directions)")
            seen.add(e.key)
            if e.a not in self.spaces or e.b not in self.spaces:
                continue
            sa, sb = self.spaces[e.a], self.spaces[e.b]
            if e.kind is EdgeKind.SEA:
                if not (sa.is_sea or sb.is_sea):
                    out.append(f"sea edge {e.a}-{e.b} joins no sea")
                for s, o in ((sa, sb), (sb, sa)):
                    if not s.is_sea and not s.is_port:
                        out.append(f"sea edge {e.a}-{e.b}: {s.name} is not a port")
                    if not s.is_sea and o.is_sea is False:
                        out.append(f"sea edge {e.a}-{e.b} joins two land spaces")
            else:
                if sa.is_sea or sb.is_sea:
                    out.append(f"{e.kind.value} road {e.a}-{e.b} touches a sea")
                if (sa.island or sb.island) and sa.island != sb.island and e.kind is not EdgeKind.STRAIT:
                    out.append(f"road {e.a}-{e.b} leaves island {sa.island or sb.island} without a strait")
        # symmetry of the derived adjacency (a one-way edge would show here)
        for name in self.spaces:
            for e in self.roads.get(name, ()) + self.sea_edges.get(name, ()):
                other = e.other(name)
                back = self.roads.get(other, ()) + self.sea_edges.get(other, ())
                if e not in back:
                    out.append(f"edge {name}->{other} has no way back")
        for sp in self.spaces.values():
            n_sea = len(self.sea_edges.get(sp.name, ()))
            if sp.is_port and n_sea == 0:
                out.append(f"port {sp.name} touches no sea")
            if sp.kind is SpaceKind.CITY and n_sea:
                out.append(f"inland city {sp.name} has a sea edge")
            if not sp.is_sea and not self.roads.get(sp.name) and not sp.island:
                out.append(f"city {sp.name} has no road")
            if sp.is_sea and sp.vp:
                out.append(f"sea {sp.name} has a VP value")
        total_vp = sum(sp.vp for sp in self.spaces.values())
        if total_vp != 13:
            out.append(f"city values total {total_vp}, the rulebook says 13 (4.2)")
        per_side = {s: sum(1 for b in self.blocks.values() if b.side is s and b.type is not BlockType.CLEOPATRA) for s in Side}
        n_cleo = sum(1 for b in self.blocks.values() if b.type is BlockType.CLEOPATRA)
        if per_side[Side.CAESAR] != 31 or per_side[Side.POMPEY] != 31 or n_cleo != 1:
            out.append(
                f"blocks: {per_side[Side.CAESAR]} Caesar, {per_side[Side.POMPEY]} Pompey, {n_cleo} Cleopatra; "
                "the rulebook says 31 + 31 + 1 (1.3)"
            )
        for b in self.blocks.values():
            if b.levy_city is not None and b.levy_city not in self.spaces:
                out.append(f"block {b.id} has unknown levy city {b.levy_city!r}")
            if b.type in (BlockType.LEGION, BlockType.EQUITATUS, BlockType.ELEPHANT) and b.levy_city is None:
                out.append(f"block {b.id} needs a levy city")
            if b.steps and (b.steps[0] != b.max_strength or list(b.steps) != sorted(b.steps, reverse=True)):
                out.append(f"block {b.id} has steps {b.steps} not descending from its maximum")
            if not 1 <= b.max_strength <= 4:
                out.append(f"block {b.id} has maximum strength {b.max_strength}")
        if len(self.cards) != 27 or sum(c.event for c in self.cards) != 7:
            out.append(f"cards: {len(self.cards)} with {sum(c.event for c in self.cards)} events; expected 27 with 7 (2.1)")
        for side in Side:
            placed: list[str] = []
            for loc, names in self.setup_map.get(side, {}).items():
                if loc not in self.spaces:
                    out.append(f"set-up of {side} names unknown location {loc!r}")
                    continue
                for n in names:
                    placed.append(n)
                    bid = block_id(side, n)
                    if bid not in self.blocks:
                        out.append(f"set-up of {side} names unknown block {n!r}")
                    elif self.blocks[bid].is_navis and not self.spaces[loc].is_port:
                        out.append(f"set-up puts {bid} in {loc}, which is not a port")
            pool = list(self.setup_pool.get(side, ()))
            for n in pool:
                if block_id(side, n) not in self.blocks:
                    out.append(f"levy pool of {side} names unknown block {n!r}")
            everything = placed + pool
            dupes = {n for n in everything if everything.count(n) > 1}
            if dupes:
                out.append(f"set-up of {side} places {sorted(dupes)} more than once")
            own = {b.name for b in self.blocks.values() if b.side is side}
            missing = own - set(everything)
            if missing:
                out.append(f"set-up of {side} leaves out {sorted(missing)}")
        return out

    # ---- lookups ------------------------------------------------------
    @cached_property
    def third_leaders(self) -> Mapping[Side, frozenset[str]]:
        """Leaders in a side's starting levy pool (Octavian, Brutus): levied only after a leader dies (7.51)."""
        return {
            side: frozenset(
                block_id(side, n) for n in self.setup_pool.get(side, ()) if self.blocks[block_id(side, n)].is_leader
            )
            for side in Side
        }

    @cached_property
    def vp_spaces(self) -> tuple[tuple[str, int], ...]:
        """The spaces worth victory points, with their points, in the board's order."""
        return tuple((name, sp.vp) for name, sp in self.spaces.items() if sp.vp)

    @cached_property
    def setup_blocks(self) -> tuple[tuple[Side, str, str | None], ...]:
        """The historical set-up (5.1) as (side, block id, location; None in the levy pool), in the
        order of :attr:`setup_map` then :attr:`setup_pool`, side by side (Caesar first)."""
        out: list[tuple[Side, str, str | None]] = []
        for side in SIDES:
            for loc, names in self.setup_map[side].items():
                out.extend((side, block_id(side, name), loc) for name in names)
            out.extend((side, block_id(side, name), None) for name in self.setup_pool[side])
        return tuple(out)

    @cached_property
    def levy_catalogue(self) -> Mapping[Side, tuple[str, ...]]:
        """A side's own blocks that can ever be levied (all but Cleopatra), sorted by id."""
        return {side: tuple(sorted(bid for bid, b in self.blocks.items()
                                   if b.side is side and b.type is not BlockType.CLEOPATRA)) for side in Side}

    @cached_property
    def top_strengths(self) -> Mapping[str, int]:
        """Each block's full strength, ``strengths()[0]``: the one strength :meth:`BlockInfo.step_up`
        gives None for."""
        return {bid: b.strengths()[0] for bid, b in self.blocks.items()}

    @cached_property
    def leaders(self) -> Mapping[Side, tuple[str, ...]]:
        """Every leader block of a side's catalogue (the only blocks that can be dead, 7.51)."""
        return {side: tuple(bid for bid, b in self.blocks.items() if b.side is side and b.is_leader) for side in Side}

    def space(self, name: str) -> Space:
        return self.spaces[name]

    def is_sea(self, name: str) -> bool:
        if name in self._seas:
            return True
        if name not in self.spaces:
            raise KeyError(name)
        return False

    @cached_property
    def _seas(self) -> frozenset[str]:
        return frozenset(n for n, s in self.spaces.items() if s.kind is SpaceKind.SEA)

    def neighbors_by_road(self, name: str) -> Iterable[tuple[str, Edge]]:
        for e in self.roads.get(name, ()):
            yield e.other(name), e

    def seas_of(self, port: str) -> tuple[str, ...]:
        """Seas adjacent to a port (for a sea: adjacent seas)."""
        return self._sea_neighbours[0].get(port, ())

    def ports_of(self, sea: str) -> tuple[str, ...]:
        return self._sea_neighbours[1].get(sea, ())

    @cached_property
    def _sea_neighbours(self) -> tuple[Mapping[str, tuple[str, ...]], Mapping[str, tuple[str, ...]]]:
        """:meth:`seas_of` and :meth:`ports_of` of every place with a sea border, worked out once."""
        seas: dict[str, tuple[str, ...]] = {}
        ports: dict[str, tuple[str, ...]] = {}
        for here, edges in self.sea_edges.items():
            seas[here] = tuple(e.other(here) for e in edges if self.is_sea(e.other(here)))
            ports[here] = tuple(e.other(here) for e in edges if not self.is_sea(e.other(here)))
        return seas, ports

    @cached_property
    def _edge_index(self) -> Mapping[tuple[str, str], Edge]:
        out: dict[tuple[str, str], Edge] = {}
        for e in self.edges:
            out[(e.a, e.b)] = e
            out[(e.b, e.a)] = e
        return out

    def edge_between(self, a: str, b: str) -> Edge | None:
        return self._edge_index.get((a, b))

    def cities(self) -> list[str]:
        return [n for n, s in self.spaces.items() if not s.is_sea]

    def seas(self) -> list[str]:
        return [n for n, s in self.spaces.items() if s.is_sea]

    @cached_property
    def _card_index(self) -> Mapping[str, CardInfo]:
        return {c.name.lower(): c for c in self.cards}

    def card(self, name: str) -> CardInfo:
        found = self._card_index.get(name.strip().lower())
        if found is not None:
            return found
        raise UnknownNameError("card", name, self._suggest(name, sorted({c.name for c in self.cards})))

    # ---- names as players write them ----------------------------------
    def resolve_space(self, text: str) -> str:
        """Map any accepted spelling to the map's name (``Rome`` -> ``Roma``)."""
        key = _norm(text)
        if key in self._names:
            return self._names[key]
        # a unique prefix is accepted ("Mare Hisp")
        hits = sorted({v for k, v in self._names.items() if k.startswith(key)}) if len(key) >= 4 else []
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise AmbiguousOrderError(f"location {text!r} is ambiguous: it could be {', '.join(hits)}")
        candidates = sorted({*self.spaces, *(a for s in self.spaces.values() for a in s.aliases)})
        near = self._suggest(text, candidates)  # an alias suggests its place, by the map's name, once
        raise UnknownNameError("location", text, tuple(dict.fromkeys(self._names[_norm(n)] for n in near)))

    def resolve_block(self, side: Side, text: str, *, cleopatra_side: Side | None = None) -> str:
        """Map a player's name for one of ``side``'s blocks to its id.

        Cleopatra resolves for whichever side she currently belongs to
        (``cleopatra_side``; by default Pompey, her starting side).
        """
        key = _norm(text)
        owner = cleopatra_side or Side.POMPEY
        for info in self.blocks.values():
            if info.type is BlockType.CLEOPATRA:
                if owner is side and key in block_aliases(info):
                    return info.id
                continue
            if info.side is side and key in block_aliases(info):
                return info.id
        candidates = [b.name for b in self.blocks.values() if b.side is side and b.type is not BlockType.CLEOPATRA]
        if owner is side:
            candidates.append("Cleopatra")
        raise UnknownNameError(f"{side} block", text, self._suggest(text, candidates))

    @staticmethod
    def _suggest(text: str, candidates: Iterable[str]) -> tuple[str, ...]:
        cands = list(candidates)
        low = {c.lower(): c for c in cands}
        hits = difflib.get_close_matches(text.strip().lower(), list(low), n=3, cutoff=0.6)
        return tuple(low[h] for h in hits)


def load_board_data() -> dict[str, Any]:
    """The packaged board data as parsed JSON."""
    text = resources.files("pbem.games.caesar").joinpath("data/board.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def default_board() -> Board:
    """The packaged, validated board (cached; the board is immutable)."""
    return Board.from_dict(load_board_data())
