"""The board as an SVG picture: what one side sees, drawn for a report.

:func:`render_map` is pure: board facts and the pieces a viewer may see go in,
an SVG document (a ``str``) comes out. It draws only the :class:`Piece` values it
is given; filtering hidden information is the caller's job (the side's view), so
nothing the viewer may not know can reach the picture through this module.

The document is built with :mod:`xml.etree.ElementTree`, so every name and
label is escaped, and it is deterministic: locations, roads and layers are
emitted in sorted order and every coordinate is an integer.

Speed: what depends on the board only (the names' first layout, the scores of
every candidate place against the fixed obstacles, the serialized sea, roads,
names and legend) is made once per board (:class:`_BoardLayout`); a map then
places the pieces with those scores and serializes only them, and layouts and
drawn locations are remembered by position. The bytes are those of building the
whole tree and serializing it once (``tests/test_svgmap_cache.py``).

Element hooks for tests and browsers:

* ``<g id="loc-Roma" class="location">`` per space (spaces in the name become
  ``-``: ``loc-Carthago-Nova``; see :func:`location_id`), holding that space's
  blocks and badges; ``class="location highlight"`` when highlighted.
* ``<g id="space-Roma" class="space port">`` per space, holding its marker.
* blocks are ``<g class="block own caesar">``, ``"block enemy hidden pompey"``,
  ``"block cleopatra"`` (her side not shown) and so on: ``own``/``enemy`` (none
  for a moderator or for Cleopatra of unknown side), then ``hidden``, then the
  colour (``caesar``, ``pompey``, ``cleopatra``, ``neutral``).
* ``circle.city`` per land space, ``line.road.major|minor|strait`` per road,
  ``line.sea-lane`` per sea edge, ``g.badge.more`` and ``g.badge.hidden-count``.
"""

from __future__ import annotations

import difflib
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from pbem.core.memo import ByIdentity
from pbem.errors import UnknownNameError
from pbem.games.caesar.rules.board import (
    ROAD_LIMIT,
    STRAIT_ATTACK_LIMIT,
    Board,
    EdgeKind,
    Side,
    Space,
    SpaceKind,
)

__all__ = ["Piece", "render_map", "location_id", "MAX_SHOWN"]

WIDTH, HEIGHT = 2500, 1250
#: A location with more pieces than this shows ``MAX_SHOWN - 1`` and a "+N" badge.
MAX_SHOWN = 4

FONT = "'DejaVu Sans', Verdana, Arial, Helvetica, sans-serif"
SEA_BG = "#dcebf5"
SEA_TEXT = "#1f5f9e"
LAND_FILL = "#fffaf0"
INK = "#2b2b2b"
HIGHLIGHT = "#d50000"

NAME_SIZE = 24
SEA_SIZE = 26
BLOCK = 50  # side of a block square
GAP = 4
BLOCK_TEXT = 17

# (fill, outline, text) per colour class
COLOURS: Mapping[str, tuple[str, str, str]] = {
    "caesar": ("#d2b48c", "#5a3a1a", "#7a1010"),
    "pompey": ("#2e7d32", "#1b4d1f", "#f4f4e8"),
    "cleopatra": ("#1e5bd8", "#0d3a8f", "#ffffff"),
    "neutral": ("#9e9e9e", "#555555", "#ffffff"),
}

# road style: stroke, width, dasharray
ROAD_STYLE: Mapping[EdgeKind, tuple[str, int, str]] = {
    EdgeKind.MAJOR: ("#6b4423", 8, ""),
    EdgeKind.MINOR: ("#8d6e4f", 4, "12 9"),
    EdgeKind.STRAIT: ("#1565c0", 5, "16 8"),
    EdgeKind.SEA: ("#5b8fc7", 2, ""),
}

RADIUS = {0: 15, 1: 21, 2: 27}  # city circle radius by VP value

LEGEND_BOX = (14, 14, 452, 390)  # x, y, width, height
TITLE_POS = (1560, 52)
TITLE_SIZE = 34


@dataclass(frozen=True)
class Piece:
    """One block as the viewer sees it at a location.

    ``side`` is None for Cleopatra when her side is not shown; ``label`` is what
    the viewer may know (``"L8 III"``; ``""`` for a hidden enemy block);
    ``hidden`` draws a blank block in the side colour; ``blue`` draws Cleopatra's
    blue block whoever owns her.
    """

    side: Side | None
    label: str
    hidden: bool = False
    blue: bool = False


def location_id(name: str) -> str:
    """The ``id`` of a location's group: ``"Carthago Nova"`` -> ``"loc-Carthago-Nova"``."""
    return "loc-" + _slug(name)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "-", name).strip("-")


# ---------------------------------------------------------------- geometry

Box = tuple[int, int, int, int]  # x0, y0, x1, y1
Label = tuple[str, int, int]  # text-anchor, x, baseline y


def _text_width(text: str, size: int) -> int:
    return int(len(text) * size * 0.6) + 4


def _overlap(a: Box, b: Box) -> int:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0


def _radius(sp: Space) -> int:
    return RADIUS.get(sp.vp, RADIUS[2])


def _outer(sp: Space) -> int:
    """Radius of a land space's marker including its port rings."""
    r = _radius(sp)
    if sp.kind is SpaceKind.MAJOR_PORT:
        return r + 12
    if sp.kind is SpaceKind.PORT:
        return r + 6
    return r


def _marker_box(sp: Space) -> Box:
    r = _outer(sp)
    return (sp.x - r, sp.y - r, sp.x + r, sp.y + r)


def _text_box(label: Label, text: str, size: int) -> Box:
    anchor, x, y = label
    w = _text_width(text, size)
    x0 = {"middle": x - w // 2, "start": x, "end": x - w}[anchor]
    return (x0, y - size + 4, x0 + w, y + size // 4)


def _label_candidates(sp: Space) -> list[Label]:
    """Places for a space's name, in preference order.

    A sea's name sits on its point (the sea lanes meet there) or slides a little
    off it; a city's name goes below, above, right or left of its marker.
    """
    if sp.is_sea:
        half = _text_width(sp.name, SEA_SIZE) // 2
        x = _clamp(sp.x, half + 6, WIDTH - half - 6)  # keep the name inside the drawing
        y = sp.y + SEA_SIZE // 3
        return [("middle", x, y), ("middle", x + half // 2, y), ("middle", x - half // 2, y),
                ("middle", x, y - 28), ("middle", x, y + 28)]
    r = _outer(sp) + 6  # room for a highlight ring
    return [
        ("middle", sp.x, sp.y + r + NAME_SIZE - 2),
        ("middle", sp.x, sp.y - r - 6),
        ("start", sp.x + r + 4, sp.y + NAME_SIZE // 3),
        ("end", sp.x - r - 4, sp.y + NAME_SIZE // 3),
        ("start", sp.x + r // 2, sp.y + r + NAME_SIZE - 2),
        ("end", sp.x - r // 2, sp.y + r + NAME_SIZE - 2),
        ("start", sp.x + r // 2, sp.y - r - 6),
        ("end", sp.x - r // 2, sp.y - r - 6),
    ]


@dataclass(frozen=True)
class _Cluster:
    """Where a location's blocks go: a grid of ``cols`` x ``rows`` block places."""

    x: int
    y: int
    cols: int
    rows: int

    @property
    def box(self) -> Box:
        return (self.x, self.y, self.x + self.cols * (BLOCK + GAP) - GAP, self.y + self.rows * (BLOCK + GAP) - GAP)


_SHAPES: Mapping[int, tuple[tuple[int, int], ...]] = {
    1: ((1, 1),),
    2: ((2, 1), (1, 2)),
    3: ((2, 2), (3, 1), (1, 3)),
    4: ((2, 2), (4, 1), (1, 4)),
}


def _cluster_candidates(core: Box, places: int) -> list[_Cluster]:
    """Places for a cluster of ``places`` blocks around ``core``, in preference order."""
    x0, y0, x1, y1 = core
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    out: list[_Cluster] = []
    for cols, rows in _SHAPES[places]:
        w, h = cols * (BLOCK + GAP) - GAP, rows * (BLOCK + GAP) - GAP
        left, right = x0 - GAP - w, x1 + GAP
        top, bottom = y0 - GAP - h, y1 + GAP
        spots = [(cx - w // 2, top), (right, cy - h // 2), (left, cy - h // 2), (cx - w // 2, bottom)]
        spots += [(x0, top), (x1 - w, top), (x0, bottom), (x1 - w, bottom)]  # sliding along
        spots += [(right, y0), (right, y1 - h), (left, y0), (left, y1 - h)]
        spots += [(right, top), (left, top), (right, bottom), (left, bottom)]  # corners
        out.extend(_Cluster(x, y, cols, rows) for x, y in spots)
    return out


def _penalty(box: Box, obstacles: Sequence[tuple[Box, int]]) -> int:
    """Weighted area ``box`` covers of ``obstacles`` (box, weight) and outside the drawing."""
    x0, y0, x1, y1 = box
    score = 0
    for (a0, b0, a1, b1), weight in obstacles:  # _overlap inlined: this loop is the map's hot spot
        if a0 < x1 and x0 < a1 and b0 < y1 and y0 < b1:
            score += weight * (min(x1, a1) - max(x0, a0)) * (min(y1, b1) - max(y0, b0))
    inside = _overlap(box, (0, 0, WIDTH, HEIGHT))
    area = (box[2] - box[0]) * (box[3] - box[1])
    return score + 10 * (area - inside)


# how bad it is to cover each thing
_W_MARKER, _W_LABEL, _W_BLOCKS, _W_FRAME = 20, 3, 20, 10
TITLE_BOX: Box = (TITLE_POS[0] - 470, TITLE_POS[1] - TITLE_SIZE, TITLE_POS[0] + 470, TITLE_POS[1] + 10)


@dataclass(frozen=True)
class _Layout:
    labels: Mapping[str, Label]
    clusters: Mapping[str, _Cluster]


def _layout(board: Board, places: Mapping[str, int]) -> _Layout:
    """Place names and block clusters where they cover the least.

    ``places`` is how many block places each occupied location needs. Greedy,
    in a fixed order (seas, then cities by value, then name), so the result is
    deterministic: names first, then blocks (which matter more) around them,
    then the names again around the blocks.

    The first pass (names only) never depends on the pieces, so it is done once
    per board (:class:`_BoardLayout`); the later passes add to the cached
    penalties of the board only what the blocks and the moved names change. The
    scores are the same integers as ``_penalty`` over the whole list of
    obstacles, so the same places win (``tests/test_svgmap.py`` keeps the plain
    greedy version and checks they agree).
    """
    static = _board_layout(board)
    key = tuple(sorted((n, p) for n, p in places.items() if p))
    done = static.layouts.get(key)
    if done is None:
        if len(static.layouts) >= _CACHE_LIMIT:
            static.layouts.clear()
        done = static.layouts[key] = _place(static, dict(key))
    return done


def _place(static: _BoardLayout, places: Mapping[str, int]) -> _Layout:
    """:func:`_layout` without the memo."""
    labels = dict(static.labels)
    clusters: dict[str, _Cluster] = {}
    blocks: list[Box] = []
    for n in static.order:
        p = places.get(n)
        if not p:
            continue
        cands, region, first = static.cluster_candidates(n, p)
        near = [b for b in blocks if _touches(b, region)]
        best_c = first  # the best with no blocks around
        if near:
            best = -1
            for c, box, base in cands:  # ``min`` keeps the first of equal scores: candidate order is the preference
                score = base + _W_BLOCKS * _cover(box, near)
                if best < 0 or score < best:
                    best_c, best = c, score
        clusters[n] = best_c
        blocks.append(best_c.box)
    # second look at city names, now that the blocks have their places
    moved: list[tuple[Box, Box]] = []  # (first-pass box, new box) of names already moved
    for n in static.cities:
        cands_l, region, first_l = static.label_candidates(n)
        near = [b for b in blocks if _touches(b, region)]
        shifted = [m for m in moved if _touches(m[0], region) or _touches(m[1], region)]
        best_l = first_l  # the first-pass place, unless blocks or moved names change the scores
        if near or shifted:
            best = -1
            for label, box, base in cands_l:
                score = base + _W_BLOCKS * _cover(box, near)
                for was, now in shifted:
                    score += _W_LABEL * (_cover(box, (now,)) - _cover(box, (was,)))
                if best < 0 or score < best:
                    best_l, best = label, score
        labels[n] = best_l
        old = static.boxes[n]
        new_box = _text_box(best_l, n, NAME_SIZE)
        if new_box != old:
            moved.append((old, new_box))
    return _Layout(labels, clusters)


def _touches(a: Box, b: Box) -> bool:
    """Whether the boxes overlap with a positive area (the test of ``_penalty``)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _cover(box: Box, others: Iterable[Box]) -> int:
    """The area of ``box`` that ``others`` cover, counted once per other box."""
    x0, y0, x1, y1 = box
    area = 0
    for a0, b0, a1, b1 in others:
        if a0 < x1 and x0 < a1 and b0 < y1 and y0 < b1:
            area += (min(x1, a1) - max(x0, a0)) * (min(y1, b1) - max(y0, b0))
    return area


def _bounds(boxes: Iterable[Box]) -> Box:
    bs = list(boxes)
    return (min(b[0] for b in bs), min(b[1] for b in bs), max(b[2] for b in bs), max(b[3] for b in bs))


class _BoardLayout:
    """What never depends on the pieces: the names after the first pass, and scores against them.

    ``base(box)`` is ``_penalty(box, obstacles)`` for the obstacles of the board
    once every name has its first-pass place (frame, title, markers, names).
    """

    def __init__(self, board: Board) -> None:
        x, y, w, h = LEGEND_BOX
        obstacles: list[tuple[Box, int]] = [((x, y, x + w, y + h), _W_FRAME), (TITLE_BOX, _W_FRAME)]
        markers = {n: _marker_box(sp) for n, sp in board.spaces.items() if not sp.is_sea}
        obstacles += [(markers[n], _W_MARKER) for n in sorted(markers)]
        self.board = board
        self.order = sorted(board.spaces, key=lambda n: (not board.spaces[n].is_sea, -board.spaces[n].vp, n))
        self.cities = [n for n in self.order if not board.spaces[n].is_sea]
        labels: dict[str, Label] = {}
        boxes: dict[str, Box] = {}
        cores: dict[str, Box] = {}
        for n in self.order:
            sp = board.spaces[n]
            size = SEA_SIZE if sp.is_sea else NAME_SIZE
            best = min(_label_candidates(sp), key=lambda c: _penalty(_text_box(c, n, size), obstacles))
            labels[n] = best
            boxes[n] = _text_box(best, n, size)
            obstacles.append((boxes[n], _W_LABEL))
            cores[n] = boxes[n] if sp.is_sea else markers[n]
        self.labels: Mapping[str, Label] = labels
        self.boxes: Mapping[str, Box] = boxes
        self.cores: Mapping[str, Box] = cores
        self._obstacles = tuple(obstacles)
        self._base: dict[Box, int] = {}
        self._grid: dict[tuple[int, int], list[int]] = {}  # obstacles by the cells they cover (see _cells)
        self._clusters: dict[tuple[str, int], tuple[list[tuple[_Cluster, Box, int]], Box, _Cluster]] = {}
        self._labels: dict[str, tuple[list[tuple[Label, Box, int]], Box, Label]] = {}
        self.xml = _BoardXml(board)
        self.layouts: dict[tuple[tuple[str, int], ...], _Layout] = {}  # by the places of the pieces

    def base(self, box: Box) -> int:
        """``_penalty`` of ``box`` with every first-pass name in place."""
        score = self._base.get(box)
        if score is None:
            near = [self._obstacles[i] for i in sorted(self._near(box))]  # the others cannot touch it
            score = self._base[box] = _penalty(box, near)
        return score

    def _near(self, box: Box) -> set[int]:
        """The obstacles (their indexes) in the grid cells ``box`` covers: all that can touch it."""
        if not self._grid:
            for i, (b, _) in enumerate(self._obstacles):
                for cell in _cells(b):
                    self._grid.setdefault(cell, []).append(i)
        out: set[int] = set()
        for cell in _cells(box):
            out.update(self._grid.get(cell, ()))
        return out

    def cluster_candidates(self, name: str, places: int) -> tuple[list[tuple[_Cluster, Box, int]], Box, _Cluster]:
        """The candidates of :func:`_cluster_candidates` with their boxes and base scores,
        the box around them all, and the best of them when no block is near."""
        key = (name, places)
        if key not in self._clusters:
            cands = [(c, c.box, self.base(c.box)) for c in _cluster_candidates(self.cores[name], places)]
            first = min(cands, key=lambda t: t[2])[0]
            self._clusters[key] = (cands, _bounds(box for _, box, _ in cands), first)
        return self._clusters[key]

    def label_candidates(self, name: str) -> tuple[list[tuple[Label, Box, int]], Box, Label]:
        """A city's name places with their boxes and scores (its own first-pass name taken
        away), the box around them all, and the best of them when nothing moved."""
        if name not in self._labels:
            own = self.boxes[name]
            cands = []
            for c in _label_candidates(self.board.spaces[name]):
                box = _text_box(c, name, NAME_SIZE)
                cands.append((c, box, self.base(box) - _W_LABEL * _cover(box, (own,))))
            first = min(cands, key=lambda t: t[2])[0]
            self._labels[name] = (cands, _bounds(box for _, box, _ in cands), first)
        return self._labels[name]


_CELL = 128  # the side of a cell of _BoardLayout's grid of obstacles


def _cells(box: Box) -> list[tuple[int, int]]:
    """The grid cells a box covers (a box on a cell's edge counts in both: never fewer than it touches)."""
    x0, y0, x1, y1 = box
    return [(cx, cy) for cx in range(x0 // _CELL, x1 // _CELL + 1) for cy in range(y0 // _CELL, y1 // _CELL + 1)]


#: The board's layout, made once per board (a board is immutable).
_board_layout: ByIdentity[Board, _BoardLayout] = ByIdentity(_BoardLayout)
#: Entries kept per board for layouts and drawn locations; the memo starts afresh when full.
_CACHE_LIMIT = 4096


def _slots(cluster: _Cluster, centre: tuple[int, int]) -> list[tuple[int, int]]:
    """Top-left corners of the block places, nearest the location first."""
    cells = [
        (cluster.x + c * (BLOCK + GAP), cluster.y + r * (BLOCK + GAP))
        for r in range(cluster.rows)
        for c in range(cluster.cols)
    ]

    def dist(p: tuple[int, int]) -> tuple[int, int, int]:
        dx = p[0] + BLOCK // 2 - centre[0]
        dy = p[1] + BLOCK // 2 - centre[1]
        return (dx * dx + dy * dy, p[1], p[0])

    return sorted(cells, key=dist)


# ---------------------------------------------------------------- elements


def _el(parent: ET.Element, tag: str, attrs: Mapping[str, object] | None = None, text: str | None = None) -> ET.Element:
    """A child element; attributes that are ``None`` or ``""`` are left out.

    Every number passed here is an ``int``, so coordinates print the same way
    on every platform.
    """
    el = ET.SubElement(parent, tag, {k: str(v) for k, v in (attrs or {}).items() if v is not None and v != ""})
    if text is not None:
        el.text = text
    return el


def _text(parent: ET.Element, x: int, y: int, text: str, size: int, *, halo: bool = False,
          **attrs: object) -> ET.Element:
    """A ``<text>``; keyword ``font_weight`` becomes ``font-weight``, ``class_`` ``class``.

    ``halo`` first draws a white outlined copy under the text so it stays
    readable across roads (a copy rather than ``paint-order``, which some
    renderers ignore).
    """
    base: dict[str, object] = {"x": x, "y": y, "font-size": size}
    base.update({k.rstrip("_").replace("_", "-"): v for k, v in attrs.items()})
    if halo:
        under = dict(base, fill="#ffffff", stroke="#ffffff", **{"stroke-width": max(4, size // 4),
                     "stroke-linejoin": "round", "stroke-opacity": "0.9", "aria-hidden": "true"})
        under["class"] = "halo"
        _el(parent, "text", under, text)
    return _el(parent, "text", base, text)


def _colour_class(piece: Piece) -> str:
    if piece.blue:
        return "cleopatra"
    if piece.side is Side.CAESAR:
        return "caesar"
    if piece.side is Side.POMPEY:
        return "pompey"
    return "neutral"


def _block_classes(piece: Piece, viewer: Side | None) -> str:
    parts = ["block"]
    if viewer is not None and piece.side is not None:
        parts.append("own" if piece.side is viewer else "enemy")
    if piece.hidden:
        parts.append("hidden")
    parts.append(_colour_class(piece))
    return " ".join(parts)


def _piece_order(piece: Piece, viewer: Side | None) -> int:
    """Own blocks first, then visible others, then hidden ones.

    The sort is stable: within each group the caller's order is kept (the
    caller knows block types and may put leaders first), so with more than
    ``MAX_SHOWN`` pieces the "+N" badge stands for the caller's last ones.
    """
    if piece.hidden:
        return 2
    if viewer is not None and piece.side is viewer:
        return 0
    return 1


def _draw_block(parent: ET.Element, x: int, y: int, piece: Piece, viewer: Side | None) -> None:
    g = _el(parent, "g", {"class": _block_classes(piece, viewer)})
    fill, outline, ink = COLOURS[_colour_class(piece)]
    _el(g, "rect", {"x": x, "y": y, "width": BLOCK, "height": BLOCK, "rx": 5,
                    "fill": fill, "stroke": outline, "stroke-width": 2})
    if piece.hidden or not piece.label.strip():
        return  # a hidden block is blank: nothing about it is written
    words = piece.label.strip().rsplit(" ", 1)
    if len(words) == 1:
        lines = [(words[0], y + BLOCK // 2 + BLOCK_TEXT // 3)]
    else:
        lines = [(words[0], y + BLOCK // 2 - 4), (words[1], y + BLOCK // 2 + BLOCK_TEXT - 2)]
    room = BLOCK - 6
    for line, baseline in lines:
        # long words ("Cleopatra") get a smaller font, then are squeezed to fit
        size = BLOCK_TEXT
        while size > 11 and _text_width(line, size) - 4 > room:
            size -= 1
        squeeze = _text_width(line, size) - 4 > room
        _text(g, x + BLOCK // 2, baseline, line, size, text_anchor="middle", fill=ink, font_weight="bold",
              textLength=room if squeeze else None, lengthAdjust="spacingAndGlyphs" if squeeze else None)


def _badge(parent: ET.Element, cls: str, x: int, y: int, text: str, fill: str, tip: str) -> None:
    g = _el(parent, "g", {"class": f"badge {cls}"})
    _el(g, "title", None, tip)
    w = max(30, _text_width(text, 20) + 8)
    _el(g, "rect", {"x": x - w // 2, "y": y - 15, "width": w, "height": 30, "rx": 15,
                    "fill": fill, "stroke": "#ffffff", "stroke-width": 2})
    _text(g, x, y + 7, text, 20, text_anchor="middle", fill="#ffffff", font_weight="bold")


def _summary(name: str, pieces: Sequence[Piece]) -> str:
    """``"Roma: Caesar II, L8 III, 2 unknown blocks"``: the labels given, never more."""
    shown = [p.label.strip() for p in pieces if not p.hidden and p.label.strip()]
    unnamed = [p for p in pieces if p.hidden or not p.label.strip()]
    parts = list(shown)
    if unnamed:
        n = len(unnamed)
        parts.append(f"{n} unknown block" + ("s" if n != 1 else ""))
    return f"{name}: " + ", ".join(parts)


# ---------------------------------------------------------------- layers


def _draw_roads(root: ET.Element, board: Board) -> None:
    order = {EdgeKind.SEA: 0, EdgeKind.MINOR: 1, EdgeKind.MAJOR: 2, EdgeKind.STRAIT: 3}
    lanes = _el(root, "g", {"class": "sea-lanes", "stroke-opacity": "0.45"})
    roads = _el(root, "g", {"class": "roads", "stroke-linecap": "round"})
    marks: list[tuple[int, int]] = []
    for e in sorted(board.edges, key=lambda e: (order[e.kind], e.key)):
        a, b = board.spaces[e.key[0]], board.spaces[e.key[1]]
        colour, width, dash = ROAD_STYLE[e.kind]
        cls = "sea-lane" if e.kind is EdgeKind.SEA else f"road {e.kind.value}"
        _el(lanes if e.kind is EdgeKind.SEA else roads, "line", {
            "class": cls, "data-a": a.name, "data-b": b.name,
            "x1": a.x, "y1": a.y, "x2": b.x, "y2": b.y,
            "stroke": colour, "stroke-width": width, "stroke-dasharray": dash,
        })
        if e.kind is EdgeKind.STRAIT:
            marks.append(((a.x + b.x) // 2, (a.y + b.y) // 2))
    for x, y in marks:  # a small white diamond with a blue edge marks the crossing
        s = 11
        _el(roads, "path", {"class": "strait-mark", "d": f"M {x} {y - s} L {x + s} {y} L {x} {y + s} L {x - s} {y} Z",
                            "fill": "#ffffff", "stroke": ROAD_STYLE[EdgeKind.STRAIT][0], "stroke-width": 4})


def _draw_space(parent: ET.Element, sp: Space, label: Label) -> None:
    g = _el(parent, "g", {"id": "space-" + _slug(sp.name), "class": f"space {sp.kind.value}", "data-name": sp.name})
    anchor, x, y = label
    if sp.is_sea:  # a dot where the sea lanes meet, and the name on or near it
        _el(g, "circle", {"class": "sea-point", "cx": sp.x, "cy": sp.y, "r": 5, "fill": SEA_TEXT})
        _text(g, x, y, sp.name, SEA_SIZE, text_anchor=anchor, fill=SEA_TEXT,
              font_style="italic", class_="sea-name", halo=True)
        return
    r = _radius(sp)
    blue = COLOURS["cleopatra"][0]
    if sp.kind is SpaceKind.MAJOR_PORT:
        _el(g, "circle", {"class": "port-ring major", "cx": sp.x, "cy": sp.y, "r": r + 10,
                          "fill": "#ffffff", "stroke": blue, "stroke-width": 4})
    if sp.is_port:
        _el(g, "circle", {"class": "port-ring", "cx": sp.x, "cy": sp.y, "r": r + 5,
                          "fill": "#ffffff", "stroke": blue, "stroke-width": 3})
    _el(g, "circle", {"class": "city", "cx": sp.x, "cy": sp.y, "r": r,
                      "fill": "#f3d36b" if sp.vp else LAND_FILL, "stroke": INK, "stroke-width": 3})
    if sp.vp:
        _text(g, sp.x, sp.y + 9, str(sp.vp), 26, text_anchor="middle", fill=INK, font_weight="bold", class_="vp")
    _text(g, x, y, sp.name, NAME_SIZE, text_anchor=anchor, fill=INK, class_="city-name",
          font_weight="bold" if sp.vp else None, halo=True)


def _clamp(v: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, v))


def _draw_tray(parent: ET.Element, sp: Space, core: Box, used: Sequence[tuple[int, int]]) -> None:
    """A pale tray under a location's blocks, tied to the location by a short line.

    Crowded places (Italy) push blocks next to a neighbour; the tie says whose they are.
    """
    pad = 5
    x0 = min(x for x, _ in used) - pad
    y0 = min(y for _, y in used) - pad
    x1 = max(x for x, _ in used) + BLOCK + pad
    y1 = max(y for _, y in used) + BLOCK + pad
    # One tray per row of blocks (joined, as the rows are a gap apart), so that a stack that does not fill
    # its grid shows no empty white square.
    rows = sorted({y for _, y in used})
    cx, cy = (core[0] + core[2]) // 2, (core[1] + core[3]) // 2
    tx, ty = _clamp(cx, x0, x1), _clamp(cy, y0, y1)  # nearest point of the tray
    if sp.is_sea:
        sx, sy = _clamp(tx, core[0], core[2]), _clamp(ty, core[1], core[3])
    else:
        dx, dy = tx - cx, ty - cy
        dist = max(1.0, (dx * dx + dy * dy) ** 0.5)
        r = _outer(sp)
        sx, sy = cx + round(dx * r / dist), cy + round(dy * r / dist)
    if (sx, sy) != (tx, ty):
        _el(parent, "line", {"class": "tie", "x1": sx, "y1": sy, "x2": tx, "y2": ty,
                             "stroke": "#3a3a3a", "stroke-width": 4, "stroke-linecap": "round"})
    for row in rows:
        rx0 = min(x for x, y in used if y == row) - pad
        rx1 = max(x for x, y in used if y == row) + BLOCK + pad
        _el(parent, "rect", {"class": "tray", "x": rx0, "y": row - pad, "width": rx1 - rx0, "height": BLOCK + 2 * pad,
                             "rx": 8, "fill": "#f7f7f2", "stroke": "#3a3a3a", "stroke-width": 2})


def _draw_location(parent: ET.Element, sp: Space, label: Label, cluster: _Cluster | None, pieces: Sequence[Piece],
                   viewer: Side | None, highlighted: bool) -> None:
    cls = "location highlight" if highlighted else "location"
    g = _el(parent, "g", {"id": location_id(sp.name), "class": cls, "data-name": sp.name})
    if pieces:
        _el(g, "title", None, _summary(sp.name, pieces))
    if highlighted:
        if sp.is_sea:
            x0, y0, x1, y1 = _text_box(label, sp.name, SEA_SIZE)
            _el(g, "rect", {"class": "highlight-ring", "x": x0 - 10, "y": y0 - 8, "width": x1 - x0 + 20,
                            "height": y1 - y0 + 16, "rx": 18, "fill": "none", "stroke": HIGHLIGHT, "stroke-width": 5})
        else:
            _el(g, "circle", {"class": "highlight-ring", "cx": sp.x, "cy": sp.y, "r": _outer(sp) + 9,
                              "fill": "none", "stroke": HIGHLIGHT, "stroke-width": 6})
    if not pieces or cluster is None:
        return
    ordered = sorted(pieces, key=lambda p: _piece_order(p, viewer))
    shown = ordered if len(ordered) <= MAX_SHOWN else ordered[: MAX_SHOWN - 1]
    core = _text_box(label, sp.name, SEA_SIZE) if sp.is_sea else _marker_box(sp)
    centre = ((core[0] + core[2]) // 2, (core[1] + core[3]) // 2)
    slots = _slots(cluster, centre)
    used = slots[: len(shown) + (len(shown) < len(ordered))]
    _draw_tray(g, sp, core, used)
    for (x, y), piece in zip(slots, shown):
        _draw_block(g, x, y, piece, viewer)
    if len(shown) < len(ordered):  # a tile in the last block place: inside the cluster, never over a name
        more = len(ordered) - len(shown)
        x, y = slots[MAX_SHOWN - 1]
        tile = _el(g, "g", {"class": "badge more"})
        _el(tile, "title", None, f"{more} more blocks here")
        _el(tile, "rect", {"x": x, "y": y, "width": BLOCK, "height": BLOCK, "rx": 5, "fill": "#424242",
                           "stroke": "#ffffff", "stroke-width": 2})
        _text(tile, x + BLOCK // 2, y + BLOCK // 2 + 7, f"+{more}", 20, text_anchor="middle", fill="#ffffff",
              font_weight="bold")
    hidden = sum(1 for p in pieces if p.hidden)
    if hidden:  # inside the top right corner of the blocks drawn (the cluster's place avoids the names)
        bx = max(x for x, _ in used) + BLOCK - 15
        by = min(y for _, y in used) + 15
        _badge(g, "hidden-count", bx, by, str(hidden), "#b71c1c",
               f"{hidden} hidden block" + ("s" if hidden != 1 else "") + " here")


def _draw_legend(root: ET.Element, viewer: Side | None) -> None:
    x, y, w, h = LEGEND_BOX
    g = _el(root, "g", {"id": "legend", "class": "legend"})
    _el(g, "rect", {"x": x, "y": y, "width": w, "height": h, "rx": 12,
                    "fill": "#ffffff", "fill-opacity": "0.92", "stroke": "#777777", "stroke-width": 2})
    _text(g, x + 20, y + 36, "Legend", 26, font_weight="bold", fill=INK)
    rows = [
        (EdgeKind.MAJOR, f"major road, {ROAD_LIMIT[EdgeKind.MAJOR]} blocks"),
        (EdgeKind.MINOR, f"minor road, {ROAD_LIMIT[EdgeKind.MINOR]} blocks"),
        (EdgeKind.STRAIT, f"strait, {ROAD_LIMIT[EdgeKind.STRAIT]} ({STRAIT_ATTACK_LIMIT} to attack)"),
        (EdgeKind.SEA, "port to sea"),
    ]
    for i, (kind, text) in enumerate(rows):
        ly = y + 70 + i * 34
        colour, width, dash = ROAD_STYLE[kind]
        _el(g, "line", {"class": f"legend-{kind.value}", "x1": x + 20, "y1": ly, "x2": x + 100, "y2": ly,
                        "stroke": colour, "stroke-width": width, "stroke-dasharray": dash,
                        "stroke-linecap": "round"})
        _text(g, x + 115, ly + 8, text, 22, fill=INK)
    samples = [("caesar", "Caesar"), ("pompey", "Pompey"), ("cleopatra", "Cleopatra")]
    if viewer is not None:
        samples.append((viewer.enemy.value.lower(), "unknown enemy"))
    for i, (cls, text) in enumerate(samples):
        bx = x + 20 + (i % 2) * 210
        by = y + 208 + (i // 2) * 48
        fill, outline, _ = COLOURS[cls]
        _el(g, "rect", {"x": bx, "y": by, "width": 36, "height": 36, "rx": 4, "fill": fill,
                        "stroke": outline, "stroke-width": 2})
        _text(g, bx + 46, by + 26, text, 22, fill=INK)
    cy = y + 340
    _el(g, "circle", {"cx": x + 38, "cy": cy, "r": RADIUS[1], "fill": "#f3d36b", "stroke": INK, "stroke-width": 3})
    _text(g, x + 38, cy + 9, "1", 26, text_anchor="middle", fill=INK, font_weight="bold")
    _text(g, x + 66, cy + 8, "VP", 22, fill=INK)
    _el(g, "circle", {"cx": x + 150, "cy": cy, "r": RADIUS[0] + 5, "fill": "#ffffff",
                      "stroke": COLOURS["cleopatra"][0], "stroke-width": 3})
    _el(g, "circle", {"cx": x + 150, "cy": cy, "r": RADIUS[0], "fill": LAND_FILL, "stroke": INK, "stroke-width": 3})
    _text(g, x + 178, cy + 8, "port", 22, fill=INK)
    _el(g, "circle", {"cx": x + 276, "cy": cy, "r": RADIUS[0] + 10, "fill": "#ffffff",
                      "stroke": COLOURS["cleopatra"][0], "stroke-width": 4})
    _el(g, "circle", {"cx": x + 276, "cy": cy, "r": RADIUS[0] + 5, "fill": "#ffffff",
                      "stroke": COLOURS["cleopatra"][0], "stroke-width": 3})
    _el(g, "circle", {"cx": x + 276, "cy": cy, "r": RADIUS[0], "fill": LAND_FILL, "stroke": INK, "stroke-width": 3})
    _text(g, x + 310, cy + 8, "major port", 22, fill=INK)


# ---------------------------------------------------------------- entry point


def render_map(
    board: Board,
    pieces: Mapping[str, Sequence[Piece]],
    *,
    viewer: Side | None,
    title: str,
    highlight: Iterable[str] = (),
    description: str = "",
) -> str:
    """The map with ``pieces`` drawn on it, as an SVG document string.

    ``pieces`` maps a location name to what ``viewer`` sees there (``viewer`` is
    None for a moderator's view). ``highlight`` names locations to ring in red
    (contested ones, for example). ``description`` is the accessible text of the
    picture; when empty, a summary of the pieces drawn is used instead.

    Raises :class:`~pbem.errors.UnknownNameError` for a location not on the board.
    """
    wanted = sorted(set(highlight))
    for name in sorted(set(pieces) | set(wanted)):
        if name not in board.spaces:
            close = difflib.get_close_matches(name, sorted(board.spaces), n=3, cutoff=0.6)
            raise UnknownNameError("location", name, tuple(close))
    occupied = {n: tuple(ps) for n, ps in pieces.items() if ps}
    if not description:
        lines = [_summary(n, occupied[n]) for n in sorted(occupied)]
        description = f"{title}. " + ("; ".join(lines) + "." if lines else "No blocks on the map.")

    static = _board_layout(board)
    layout = _layout(board, {n: min(len(ps), MAX_SHOWN) for n, ps in occupied.items()})
    parts = [static.xml.head]
    parts.append(_fragment(lambda root: (_el(root, "title", {"id": "map-title"}, title),
                                         _el(root, "desc", {"id": "map-desc"}, description))))
    parts.append(static.xml.roads)
    parts.append('<g class="spaces">')
    parts.extend(static.xml.space(name, layout.labels[name]) for name in static.xml.space_order)
    parts.append("</g>")
    parts.append(static.xml.legend(viewer))
    parts.append('<g class="locations">')
    for name in sorted(board.spaces):
        here = occupied.get(name, ())
        if not here and name not in wanted:
            parts.append(static.xml.empty_location(name))
            continue
        parts.append(static.xml.location(name, layout.labels[name], layout.clusters.get(name), here, viewer,
                                         name in wanted))
    parts.append("</g>")
    parts.append(_fragment(lambda root: _text(root, TITLE_POS[0], TITLE_POS[1], title, TITLE_SIZE,
                                              text_anchor="middle", fill=INK, font_weight="bold",
                                              class_="map-title", halo=True)))
    parts.append("</svg>\n")
    return "".join(parts)


def _fragment(draw: Callable[[ET.Element], object]) -> str:
    """The XML of the elements ``draw`` adds to a parent, as they print inside any parent.

    An element prints the same alone or within a tree (no namespaces are used,
    and no element has a tail), so a document can be put together from pieces
    serialized at different times.
    """
    parent = ET.Element("g")
    draw(parent)
    out: list[str] = []
    for child in parent:
        _write(child, out)
    return "".join(out)


def _write(el: ET.Element, out: list[str]) -> None:
    """``ET.tostring(el, encoding="unicode")`` for the elements this module makes, faster.

    The same escaping and the same short empty elements (``<g ... />``), so the
    bytes are the same (``tests/test_svgmap_cache.py`` compares with ElementTree).
    """
    out.append("<" + el.tag)
    for k, v in el.items():
        out.append(f' {k}="{_escape_attrib(v)}"')
    if el.text or len(el):
        out.append(">")
        if el.text:
            out.append(_escape_text(el.text))
        for child in el:
            _write(child, out)
        out.append(f"</{el.tag}>")
    else:
        out.append(" />")


def _escape_text(text: str) -> str:
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def _escape_attrib(text: str) -> str:
    """An attribute's value as ElementTree writes it; remembered, as the same values recur (colours,
    sizes, coordinates, classes) in every map."""
    got = _ESCAPED.get(text)
    if got is None:
        got = _escape_attrib_anew(text)
        if len(_ESCAPED) >= _CACHE_LIMIT * 4:
            _ESCAPED.clear()
        _ESCAPED[text] = got
    return got


_ESCAPED: dict[str, str] = {}


def _escape_attrib_anew(text: str) -> str:
    text = _escape_text(text)
    for ch, ref in (('"', "&quot;"), ("\r", "&#13;"), ("\n", "&#10;"), ("\t", "&#09;")):
        if ch in text:
            text = text.replace(ch, ref)
    return text


class _BoardXml:
    """The parts of the document that depend on the board only, serialized once.

    A space's group depends on where its name went (the blocks can push a city's
    name), so it is kept per place of the name; the legend per viewer.
    """

    def __init__(self, board: Board) -> None:
        root = ET.Element("svg", {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"0 0 {WIDTH} {HEIGHT}",
            "width": "100%",
            "preserveAspectRatio": "xMidYMid meet",
            "role": "img",
            "aria-labelledby": "map-title map-desc",
            "font-family": FONT,
            "class": "pbem-map",
        })
        closing = "</svg>"
        whole = ET.tostring(root, encoding="unicode", short_empty_elements=False)
        if not whole.endswith(closing):
            raise AssertionError(f"unexpected ElementTree output {whole[-20:]!r}")
        self.head = whole[: -len(closing)]
        self.board = board
        def sea_and_roads(r: ET.Element) -> None:
            _el(r, "rect", {"class": "sea", "x": 0, "y": 0, "width": WIDTH, "height": HEIGHT, "fill": SEA_BG})
            _draw_roads(r, board)

        self.roads = _fragment(sea_and_roads)
        self.space_order = sorted(board.spaces, key=lambda n: (not board.spaces[n].is_sea, n))
        self._spaces: dict[tuple[str, Label], str] = {}
        self._legends: dict[Side | None, str] = {}
        self._empty: dict[str, str] = {}
        self._locations: dict[tuple[str, Label, _Cluster | None, tuple[Piece, ...], Side | None, bool], str] = {}

    def space(self, name: str, label: Label) -> str:
        key = (name, label)
        got = self._spaces.get(key)
        if got is None:
            got = self._spaces[key] = _fragment(lambda r: _draw_space(r, self.board.spaces[name], label))
        return got

    def legend(self, viewer: Side | None) -> str:
        if viewer not in self._legends:
            self._legends[viewer] = _fragment(lambda r: _draw_legend(r, viewer))
        return self._legends[viewer]

    def location(self, name: str, label: Label, cluster: _Cluster | None, pieces: tuple[Piece, ...],
                 viewer: Side | None, highlighted: bool) -> str:
        """A location's group with its pieces: the same pieces in the same place print the
        same, and they recur from step to step and from viewer to viewer."""
        key = (name, label, cluster, pieces, viewer, highlighted)
        got = self._locations.get(key)
        if got is None:
            if len(self._locations) >= _CACHE_LIMIT:
                self._locations.clear()
            sp = self.board.spaces[name]
            got = self._locations[key] = _fragment(
                lambda r: _draw_location(r, sp, label, cluster, pieces, viewer, highlighted))
        return got

    def empty_location(self, name: str) -> str:
        """A location with no pieces and no highlight (no label or cluster is drawn for it)."""
        got = self._empty.get(name)
        if got is None:
            sp = self.board.spaces[name]
            got = self._empty[name] = _fragment(
                lambda r: _draw_location(r, sp, ("middle", sp.x, sp.y), None, (), None, False))
        return got
