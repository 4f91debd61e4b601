"""The SVG map: well-formed, complete, deterministic, escaped, and silent about hidden blocks."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from pbem.errors import UnknownNameError
from pbem.games.caesar.rules.board import Board, EdgeKind, Side, block_id, default_board, short_name
from pbem.games.caesar.view.svgmap import MAX_SHOWN, Piece, location_id, render_map

NS = "{http://www.w3.org/2000/svg}"
ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV"}


@pytest.fixture(scope="module")
def board() -> Board:
    return default_board()


def classes(el: ET.Element) -> set[str]:
    return set(el.get("class", "").split())


def find(root: ET.Element, tag: str, *cls: str) -> list[ET.Element]:
    """Every ``tag`` element (``"*"`` for any) whose class list holds all of ``cls``."""
    return [
        el
        for el in root.iter()
        if (tag == "*" or el.tag == NS + tag) and classes(el) >= set(cls)
    ]


def group(root: ET.Element, name: str) -> ET.Element:
    hits = [el for el in root.iter(NS + "g") if el.get("id") == location_id(name)]
    assert len(hits) == 1, name
    return hits[0]


def texts(el: ET.Element) -> list[str]:
    return [t.text or "" for t in el.iter(NS + "text")]


def setup_pieces(board: Board, viewer: Side | None) -> dict[str, list[Piece]]:
    """The initial set-up as ``viewer`` sees it (None: the moderator sees everything)."""
    out: dict[str, list[Piece]] = {}
    for side, locs in board.setup_map.items():
        for loc, names in sorted(locs.items()):
            for name in names:
                info = board.blocks[block_id(side, name)]
                seen = viewer is None or side is viewer
                label = f"{short_name(info)} {ROMAN[info.max_strength]}" if seen else ""
                cleo = name == "Cleopatra"
                out.setdefault(loc, []).append(
                    Piece(side if seen or not cleo else None, label, hidden=not seen, blue=cleo)
                )
    return out


def render(board: Board, pieces: dict[str, list[Piece]], viewer: Side | None = Side.CAESAR, **kw: object) -> str:
    kw.setdefault("title", "Test map")
    return render_map(board, pieces, viewer=viewer, **kw)  # type: ignore[arg-type]


def test_parses_as_svg_with_title_desc_and_view_box(board: Board) -> None:
    svg = render(board, {}, title="Caesar, 705 BC", description="The map at the start.")
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    assert root.get("viewBox") == "0 0 2500 1250"
    assert root.get("width") == "100%"
    assert root.find(NS + "title") is not None and root.find(NS + "title").text == "Caesar, 705 BC"  # type: ignore[union-attr]
    assert root.find(NS + "desc").text == "The map at the start."  # type: ignore[union-attr]


def test_every_space_is_named_and_has_a_location_group(board: Board) -> None:
    root = ET.fromstring(render(board, {}))
    drawn = set(texts(root))
    for name in board.spaces:
        assert name in drawn
        group(root, name)
    assert location_id("Carthago Nova") == "loc-Carthago-Nova"


def test_one_circle_per_city_and_one_line_per_edge(board: Board) -> None:
    root = ET.fromstring(render(board, {}))
    assert len(find(root, "circle", "city")) == len(board.cities())
    kinds = Counter(e.kind for e in board.edges)
    for kind in (EdgeKind.MAJOR, EdgeKind.MINOR, EdgeKind.STRAIT):
        assert len(find(root, "line", "road", kind.value)) == kinds[kind], kind
    assert len(find(root, "line", "road")) == sum(kinds[k] for k in kinds if k is not EdgeKind.SEA)
    assert len(find(root, "line", "sea-lane")) == kinds[EdgeKind.SEA]
    assert len(find(root, "*", "strait-mark")) == kinds[EdgeKind.STRAIT]
    # VP cities show their value in the circle
    vp_texts = Counter(t.text for t in find(root, "text", "vp"))
    assert vp_texts == Counter(str(s.vp) for s in board.spaces.values() if s.vp)


def test_port_rings(board: Board) -> None:
    root = ET.fromstring(render(board, {}))
    ports = [s for s in board.spaces.values() if s.is_port]
    majors = [s for s in ports if s.is_major_port]
    assert len(find(root, "circle", "port-ring")) == len(ports) + len(majors)
    assert len(find(root, "circle", "port-ring", "major")) == len(majors)


def test_own_enemy_and_cleopatra_classes(board: Board) -> None:
    pieces = {
        "Roma": [Piece(Side.CAESAR, "Caesar II"), Piece(Side.POMPEY, "", hidden=True)],
        "Alexandria": [Piece(None, "", hidden=True, blue=True)],
        "Utica": [Piece(Side.POMPEY, "L39 III")],
    }
    root = ET.fromstring(render(board, pieces))
    roma = group(root, "Roma")
    own = find(roma, "g", "block", "own", "caesar")
    assert len(own) == 1 and texts(own[0]) == ["Caesar", "II"]
    assert len(find(roma, "g", "block", "enemy", "hidden", "pompey")) == 1
    cleo = find(group(root, "Alexandria"), "g", "block")
    assert len(cleo) == 1 and classes(cleo[0]) == {"block", "hidden", "cleopatra"}
    assert find(cleo[0], "rect")[0].get("fill") == "#1e5bd8"
    # an enemy block the viewer may see (after a battle) keeps its label
    assert texts(find(group(root, "Utica"), "g", "block", "enemy")[0]) == ["L39", "III"]
    # the moderator's view has neither own nor enemy
    root = ET.fromstring(render(board, pieces, viewer=None))
    assert {frozenset(classes(b)) for b in find(group(root, "Roma"), "g", "block")} == {
        frozenset({"block", "caesar"}),
        frozenset({"block", "hidden", "pompey"}),
    }


def test_hidden_piece_prints_nothing(board: Board) -> None:
    root = ET.fromstring(render(board, {"Narbo": [Piece(Side.POMPEY, "", hidden=True)]}))
    (block,) = find(group(root, "Narbo"), "g", "block")
    assert classes(block) == {"block", "enemy", "hidden", "pompey"}
    assert texts(block) == []
    assert [el.tag for el in block] == [NS + "rect"]
    # even a label passed by mistake with hidden=True is never written
    svg = render(board, {"Narbo": [Piece(Side.POMPEY, "Legio 37 IV", hidden=True)]})
    assert "Legio 37" not in svg and "37" not in "".join(texts(ET.fromstring(svg)))


def test_hidden_count_badge(board: Board) -> None:
    pieces = {"Narbo": [Piece(Side.CAESAR, "L7 III")] + [Piece(Side.POMPEY, "", hidden=True)] * 2}
    root = ET.fromstring(render(board, pieces))
    (badge,) = find(group(root, "Narbo"), "g", "badge", "hidden-count")
    assert texts(badge) == ["2"]
    assert not find(group(root, "Narbo"), "g", "badge", "more")


def test_crowded_location_shows_plus_badge(board: Board) -> None:
    pieces = {"Roma": [Piece(Side.CAESAR, f"L{n} IV") for n in range(1, 7)]}
    root = ET.fromstring(render(board, pieces))
    roma = group(root, "Roma")
    blocks = find(roma, "g", "block")
    assert len(blocks) == MAX_SHOWN - 1 == 3
    assert [texts(b)[0] for b in blocks] == ["L1", "L2", "L3"]
    (more,) = find(roma, "g", "badge", "more")
    assert texts(more) == ["+3"]
    # exactly MAX_SHOWN pieces: all drawn, no badge
    root = ET.fromstring(render(board, {"Roma": pieces["Roma"][:MAX_SHOWN]}))
    assert len(find(group(root, "Roma"), "g", "block")) == MAX_SHOWN
    assert not find(root, "g", "badge", "more")


def test_own_blocks_drawn_before_hidden_ones(board: Board) -> None:
    hidden = [Piece(Side.POMPEY, "", hidden=True)] * 4
    own = [Piece(Side.CAESAR, "L8 III"), Piece(Side.CAESAR, "Caesar II")]
    root = ET.fromstring(render(board, {"Roma": hidden + own}))
    blocks = find(group(root, "Roma"), "g", "block")
    assert [texts(b)[:1] for b in blocks] == [["L8"], ["Caesar"], []]
    assert texts(find(root, "g", "badge", "hidden-count")[0]) == ["4"]


def test_highlight(board: Board) -> None:
    root = ET.fromstring(render(board, {}, highlight=["Roma", "Mare Internum"]))
    for name in ("Roma", "Mare Internum"):
        g = group(root, name)
        assert "highlight" in classes(g)
        assert len(find(g, "*", "highlight-ring")) == 1
    assert "highlight" not in classes(group(root, "Genua"))


def test_deterministic(board: Board) -> None:
    pieces = setup_pieces(board, Side.POMPEY)
    first = render(board, pieces, viewer=Side.POMPEY, highlight=["Roma", "Genua"])
    again = render(board, pieces, viewer=Side.POMPEY, highlight=("Genua", "Roma"))
    backwards = render(board, dict(reversed(list(pieces.items()))), viewer=Side.POMPEY, highlight={"Roma", "Genua"})
    assert first == again == backwards


def test_text_is_escaped(board: Board) -> None:
    evil = "<script>alert('x')</script>"
    svg = render(board, {"Roma": [Piece(Side.CAESAR, evil)]}, title="A & B <i>", description=evil)
    assert "<script" not in svg and "<i>" not in svg
    assert "&lt;script&gt;" in svg and "A &amp; B &lt;i&gt;" in svg
    root = ET.fromstring(svg)
    assert not [el for el in root.iter() if el.tag in ("script", NS + "script", NS + "i")]
    assert root.find(NS + "desc").text == evil  # type: ignore[union-attr]


def test_unknown_location_is_an_error(board: Board) -> None:
    with pytest.raises(UnknownNameError, match="Rome"):
        render(board, {"Rome": [Piece(Side.CAESAR, "L8 III")]})
    with pytest.raises(UnknownNameError):
        render(board, {}, highlight=["Atlantis"])


def test_default_description_lists_only_what_is_given(board: Board) -> None:
    pieces = {"Roma": [Piece(Side.CAESAR, "Caesar II"), Piece(Side.POMPEY, "", hidden=True)]}
    root = ET.fromstring(render(board, pieces, title="T"))
    assert root.find(NS + "desc").text == "T. Roma: Caesar II, 1 unknown block."  # type: ignore[union-attr]
    assert ET.fromstring(render(board, {}, title="T")).find(NS + "desc").text == "T. No blocks on the map."  # type: ignore[union-attr]


@pytest.mark.parametrize("viewer", [Side.CAESAR, Side.POMPEY, None])
def test_initial_setup(board: Board, viewer: Side | None) -> None:
    pieces = setup_pieces(board, viewer)
    root = ET.fromstring(render(board, pieces, viewer=viewer))
    for loc, ps in pieces.items():
        g = group(root, loc)
        assert len(find(g, "g", "block")) == len(ps)
        hidden = sum(p.hidden for p in ps)
        assert len(find(g, "g", "block", "hidden")) == hidden
        assert len(find(g, "g", "badge", "hidden-count")) == (1 if hidden else 0)
    # a side's map writes its own blocks and nothing about the enemy's
    if viewer is not None:
        own = find(root, "g", "block", "own")
        assert len(own) == sum(len(names) for names in board.setup_map[viewer].values())
        assert all(texts(b) for b in own)
        others = [b for b in find(root, "g", "block") if "own" not in classes(b)]
        assert len(others) == sum(len(names) for names in board.setup_map[viewer.enemy].values())
        assert all(texts(b) == [] for b in others)


def test_setup_blocks_do_not_overlap(board: Board) -> None:
    """The layout keeps every location's tray of blocks clear of the others."""
    pieces = setup_pieces(board, None)
    root = ET.fromstring(render(board, pieces, viewer=None))
    trays = []  # (location, box): a location's tray is one rectangle per row of its blocks
    for loc in pieces:
        rows = [tuple(int(r.get(k, "0")) for k in ("x", "y", "width", "height")) for r in find(group(root, loc), "rect", "tray")]
        assert 1 <= len(rows) <= MAX_SHOWN, loc
        trays += [(loc, box) for box in rows]
    for i, (loc, (x, y, w, h)) in enumerate(trays):
        assert x >= 0 and x + w <= 2500 and y >= 0 and y + h <= 1250
        for loc2, (x2, y2, w2, h2) in trays[i + 1 :]:
            if loc2 != loc:
                assert x + w <= x2 or x2 + w2 <= x or y + h <= y2 or y2 + h2 <= y


@pytest.mark.parametrize("count", [2, 3, 4, 5, 7])
def test_a_stack_shows_no_empty_square_and_its_badges_stay_on_it(board: Board, count: int) -> None:
    """Every tray is filled with blocks (or the "+N" tile), and the badges sit on the blocks: nothing
    of a stack covers the map beyond its block places (where the layout kept names clear)."""
    pieces = {"Roma": [Piece(Side.POMPEY, "", hidden=True) for _ in range(count)],
              "Tarraco": [Piece(Side.CAESAR, f"L{i} III") for i in range(count)]}
    root = ET.fromstring(render(board, pieces, viewer=Side.CAESAR))
    for loc in pieces:
        g = group(root, loc)
        squares = [(int(float(r.get("x", "0"))), int(float(r.get("y", "0")))) for b in find(g, "g", "block")
                   for r in b.iter("{http://www.w3.org/2000/svg}rect")][: MAX_SHOWN]
        for tile in find(g, "g", "badge", "more"):
            r = next(tile.iter("{http://www.w3.org/2000/svg}rect"))
            squares.append((int(r.get("x", "0")), int(r.get("y", "0"))))
        assert len(squares) == min(count, MAX_SHOWN)
        for tray in find(g, "rect", "tray"):
            x, y, w, h = (int(tray.get(k, "0")) for k in ("x", "y", "width", "height"))
            inside = [(sx, sy) for sx, sy in squares if x <= sx and sx + 50 <= x + w and y <= sy and sy + 50 <= y + h]
            assert len(inside) * 54 - 4 + 10 == w, (loc, count, "an empty square in the tray")
        x0, y0 = min(sx for sx, _ in squares), min(sy for _, sy in squares)
        x1, y1 = max(sx for sx, _ in squares) + 50, max(sy for _, sy in squares) + 50
        for badge in find(g, "g", "badge"):
            r = next(badge.iter("{http://www.w3.org/2000/svg}rect"))
            bx, by, bw, bh = (int(r.get(k, "0")) for k in ("x", "y", "width", "height"))
            assert x0 <= bx and bx + bw <= x1 and y0 <= by and by + bh <= y1, (loc, count, "a badge off its blocks")
