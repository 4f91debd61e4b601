"""The map's cached layout and serialized layers give the same bytes as drawing it whole.

:func:`pbem.games.caesar.view.svgmap.render_map` lays out the names once per board and puts the
document together from layers serialized once; here the plain version (the greedy
layout over the whole list of obstacles, one ElementTree for the whole document)
is kept as the reference, and both must agree byte for byte on many positions.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.games.caesar.rules.board import Board, Side, default_board
from pbem.games.caesar.view import svgmap
from pbem.games.caesar.view.svgmap import (
    _W_BLOCKS,
    _W_FRAME,
    _W_LABEL,
    _W_MARKER,
    HEIGHT,
    INK,
    LEGEND_BOX,
    MAX_SHOWN,
    NAME_SIZE,
    SEA_BG,
    SEA_SIZE,
    TITLE_BOX,
    TITLE_POS,
    TITLE_SIZE,
    WIDTH,
    Box,
    Piece,
    _Cluster,
    _cluster_candidates,
    _draw_legend,
    _draw_location,
    _draw_roads,
    _draw_space,
    _el,
    _label_candidates,
    _Layout,
    _marker_box,
    _penalty,
    _summary,
    _text,
    _text_box,
    render_map,
)

BOARD = default_board()
NAMES = sorted(BOARD.spaces)


def reference_layout(board: Board, places: Mapping[str, int]) -> _Layout:
    """The greedy layout scoring every candidate against the whole list of obstacles."""
    x, y, w, h = LEGEND_BOX
    obstacles: list[tuple[Box, int]] = [((x, y, x + w, y + h), _W_FRAME), (TITLE_BOX, _W_FRAME)]
    markers = {n: _marker_box(sp) for n, sp in board.spaces.items() if not sp.is_sea}
    obstacles += [(markers[n], _W_MARKER) for n in sorted(markers)]
    order = sorted(board.spaces, key=lambda n: (not board.spaces[n].is_sea, -board.spaces[n].vp, n))
    labels = {}
    cores = {}
    for n in order:
        sp = board.spaces[n]
        size = SEA_SIZE if sp.is_sea else NAME_SIZE
        labels[n] = min(_label_candidates(sp), key=lambda c: _penalty(_text_box(c, n, size), obstacles))
        box = _text_box(labels[n], n, size)
        obstacles.append((box, _W_LABEL))
        cores[n] = box if sp.is_sea else markers[n]
    clusters: dict[str, _Cluster] = {}
    for n in order:
        if not places.get(n):
            continue
        clusters[n] = min(_cluster_candidates(cores[n], places[n]), key=lambda c: _penalty(c.box, obstacles))
        obstacles.append((clusters[n].box, _W_BLOCKS))
    for n in order:
        sp = board.spaces[n]
        if sp.is_sea:
            continue
        obstacles.remove((_text_box(labels[n], n, NAME_SIZE), _W_LABEL))
        labels[n] = min(_label_candidates(sp), key=lambda c: _penalty(_text_box(c, n, NAME_SIZE), obstacles))
        obstacles.append((_text_box(labels[n], n, NAME_SIZE), _W_LABEL))
    return _Layout(labels, clusters)


def reference_map(board: Board, pieces: Mapping[str, Sequence[Piece]], *, viewer: Side | None, title: str,
                  highlight: Iterable[str] = ()) -> str:
    """The whole document as one ElementTree, serialized once."""
    wanted = sorted(set(highlight))
    occupied = {n: tuple(ps) for n, ps in pieces.items() if ps}
    lines = [_summary(n, occupied[n]) for n in sorted(occupied)]
    description = f"{title}. " + ("; ".join(lines) + "." if lines else "No blocks on the map.")
    root = ET.Element("svg", {
        "xmlns": "http://www.w3.org/2000/svg", "viewBox": f"0 0 {WIDTH} {HEIGHT}", "width": "100%",
        "preserveAspectRatio": "xMidYMid meet", "role": "img", "aria-labelledby": "map-title map-desc",
        "font-family": svgmap.FONT, "class": "pbem-map",
    })
    _el(root, "title", {"id": "map-title"}, title)
    _el(root, "desc", {"id": "map-desc"}, description)
    _el(root, "rect", {"class": "sea", "x": 0, "y": 0, "width": WIDTH, "height": HEIGHT, "fill": SEA_BG})
    layout = reference_layout(board, {n: min(len(ps), MAX_SHOWN) for n, ps in occupied.items()})
    _draw_roads(root, board)
    spaces_layer = _el(root, "g", {"class": "spaces"})
    for name in sorted(board.spaces, key=lambda n: (not board.spaces[n].is_sea, n)):
        _draw_space(spaces_layer, board.spaces[name], layout.labels[name])
    _draw_legend(root, viewer)
    pieces_layer = _el(root, "g", {"class": "locations"})
    for name in sorted(board.spaces):
        _draw_location(pieces_layer, board.spaces[name], layout.labels[name], layout.clusters.get(name),
                       occupied.get(name, ()), viewer, name in wanted)
    _text(root, TITLE_POS[0], TITLE_POS[1], title, TITLE_SIZE, text_anchor="middle", fill=INK,
          font_weight="bold", class_="map-title", halo=True)
    return ET.tostring(root, encoding="unicode") + "\n"


pieces_st = st.builds(
    Piece,
    side=st.sampled_from([Side.CAESAR, Side.POMPEY, None]),
    label=st.sampled_from(["", "L8 III", "Caesar IV", "Navis ?", "Cleopatra", "<b>&\"x", "a\tb\r\nc >"]),
    hidden=st.booleans(),
    blue=st.booleans(),
)
positions = st.dictionaries(st.sampled_from(NAMES), st.lists(pieces_st, min_size=0, max_size=7), max_size=len(NAMES))


@settings(max_examples=120, deadline=None)
@given(positions, st.lists(st.sampled_from(NAMES), max_size=4), st.sampled_from([Side.CAESAR, Side.POMPEY, None]))
def test_cached_map_is_byte_identical_to_the_whole_tree(pieces: dict[str, list[Piece]], highlight: list[str],
                                                       viewer: Side | None) -> None:
    places = {n: min(len(ps), MAX_SHOWN) for n, ps in pieces.items() if ps}
    assert svgmap._layout(BOARD, places) == reference_layout(BOARD, places)
    title = "Caesar's view: 705 BC & <turn> 3"
    assert render_map(BOARD, pieces, viewer=viewer, title=title, highlight=highlight) == \
        reference_map(BOARD, pieces, viewer=viewer, title=title, highlight=highlight)


def test_crowded_board_moves_names_and_still_agrees() -> None:
    """Every space full: the blocks push names, so the second pass really moves some."""
    pieces = {n: [Piece(Side.CAESAR, "L1 II")] * MAX_SHOWN for n in NAMES}
    places = {n: MAX_SHOWN for n in NAMES}
    layout = svgmap._layout(BOARD, places)
    assert layout == reference_layout(BOARD, places)
    assert layout.labels != svgmap._board_layout(BOARD).labels  # some names did move
    assert render_map(BOARD, pieces, viewer=None, title="t") == reference_map(BOARD, pieces, viewer=None, title="t")


def test_a_new_board_object_gets_its_own_layout() -> None:
    other = Board.__new__(Board)
    other.__dict__.update(BOARD.__dict__)  # equal facts, another object
    assert svgmap._board_layout(other) is not svgmap._board_layout(BOARD)
    assert render_map(other, {}, viewer=None, title="t") == render_map(BOARD, {}, viewer=None, title="t")
