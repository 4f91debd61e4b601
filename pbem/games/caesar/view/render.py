"""A side's report as a template context: the view, and for HTML the SVG map of what it shows.

Pure: the core's rendering environment (:mod:`pbem.render`) turns the
:class:`~pbem.core.game.ReportContext` into text with ``templates/caesar/``.
"""

from __future__ import annotations

from collections.abc import Sequence

from pbem.core.events import Event
from pbem.core.game import ReportContext
from pbem.core.phrase import N_, Phrase
from pbem.games.caesar.rules.board import Side, default_board
from pbem.games.caesar.rules.game import Game
from pbem.games.caesar.view.phrases import side
from pbem.games.caesar.view.svgmap import Piece, render_map
from pbem.games.caesar.view.views import NextStep, View, build_view

__all__ = ["map_pieces", "map_title", "render_map_svg", "report_context", "view_context"]

TEXT_TEMPLATE = "report.txt.j2"
HTML_TEMPLATE = "report.html.j2"


# ---- the map -------------------------------------------------------------------


def map_pieces(view: View) -> dict[str, list[Piece]]:
    """What the view shows at each location, as :class:`~pbem.games.caesar.view.svgmap.Piece` values.

    Known blocks get their label (``"L8 III"``); an enemy block is a blank block
    in its side's colour (``hidden``), or ``"Navis ?"`` at sea; Cleopatra is her
    blue block, with her strength only when the view knows it.
    """
    out: dict[str, list[Piece]] = {}
    for loc in view.locations:
        pieces: list[Piece] = []
        for f in loc.forces:
            side = Side(f.side)
            pieces.extend(Piece(side, b.label) for b in f.blocks)
            unknown = f.count - len(f.blocks)
            if f.navis:
                pieces.extend(Piece(side, "Navis ?") for _ in range(unknown))
            else:
                pieces.extend(Piece(side, "", hidden=True) for _ in range(unknown))
        if loc.cleopatra is not None:
            c = loc.cleopatra
            label = f"Cleopatra {c.roman}" if c.roman else "Cleopatra"
            pieces.insert(0, Piece(Side(c.side), label, blue=True))
        if pieces:
            out[loc.name] = pieces
    return out


def map_title(view: View) -> str:
    if view.moderator:  # a Phrase: the HTML report says it in the reader's language (the map's own title stays English)
        return Phrase(N_("Moderator's view: %(year)s, game turn %(turn)s"), year=view.year, turn=view.turn)
    return Phrase(N_("%(side)s's view: %(year)s, game turn %(turn)s"), side=side(view.viewer), year=view.year, turn=view.turn)


def render_map_svg(view: View) -> str:
    viewer = None if view.moderator else Side(view.viewer)
    return render_map(default_board(), map_pieces(view), viewer=viewer, title=map_title(view), highlight=view.contested)


# ---- reports -------------------------------------------------------------------


def view_context(view: View, fmt: str) -> ReportContext:
    """The template context of ``view`` in ``fmt`` (``text``: an email body; ``html``: with the map)."""
    if fmt == "html":
        return ReportContext(HTML_TEMPLATE, {"view": view, "map_title": map_title(view)}, svg=render_map_svg(view))
    if fmt == "text":
        return ReportContext(TEXT_TEMPLATE, {"view": view})
    raise ValueError(f"unknown report format {fmt!r}; use text or html")


def report_context(game: Game, events: Sequence[Event], viewer: Side | None, *, since: int,
                   next_step: NextStep | None, fmt: str) -> ReportContext:
    """The report of ``viewer`` (None: the moderator), built from that side's view only."""
    return view_context(build_view(game, list(events), viewer, since=since, next_step=next_step), fmt)
