"""Reports: a side's :class:`~pbem.games.caesar.view.views.View` rendered with Jinja2.

Templates receive the view and nothing else (the HTML report also gets the SVG
map, drawn by :func:`pbem.games.caesar.view.svgmap.render_map` from the view's pieces), so a
report cannot show what the view does not hold.

One :class:`jinja2.Environment` for every report: ``StrictUndefined`` (a typo in
a template is an error, not an empty string), autoescape for html, svg and xml
templates, ``trim_blocks`` and ``lstrip_blocks`` for the text ones. Rendering is
deterministic: the same view gives the same bytes.

Templates are looked up in ``pbem/templates`` inside the installed package
(the wheel puts the repository's ``templates/`` there), then in the
``templates/`` directory beside the ``pbem/`` package of a source checkout.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Callable

from jinja2 import BaseLoader, ChoiceLoader, Environment, FileSystemLoader, StrictUndefined, TemplateNotFound
from markupsafe import Markup

from pbem.games.caesar.rules.board import Side, default_board
from pbem.games.caesar.view.views import View
from pbem.games.caesar.view.svgmap import Piece, render_map

__all__ = ["environment", "map_pieces", "render_html", "render_map_svg", "render_text"]

TEXT_TEMPLATE = "caesar/report.txt.j2"
HTML_TEMPLATE = "caesar/report.html.j2"
_AUTOESCAPED = (".html.j2", ".svg.j2", ".xml.j2", ".html", ".svg", ".xml")


class _PackageLoader(BaseLoader):
    """Templates from a :class:`~importlib.resources.abc.Traversable` (works in zips too)."""

    def __init__(self, root: Traversable) -> None:
        self.root = root

    def get_source(self, environment: Environment, template: str) -> tuple[str, str | None, Callable[[], bool]]:
        node = self.root
        for part in template.split("/"):
            if part in ("", ".", ".."):
                raise TemplateNotFound(template)
            node = node.joinpath(part)
        if not node.is_file():
            raise TemplateNotFound(template)
        return node.read_text(encoding="utf-8"), None, lambda: True


def _autoescape(name: str | None) -> bool:
    return name is not None and name.lower().endswith(_AUTOESCAPED)


@cache
def environment() -> Environment:
    """The one Jinja environment of every report."""
    checkout = Path(__file__).resolve().parent.parent / "templates"
    loader = ChoiceLoader([
        _PackageLoader(resources.files("pbem") / "templates"),
        FileSystemLoader(str(checkout)),
    ])
    env = Environment(
        loader=loader,
        undefined=StrictUndefined,
        autoescape=_autoescape,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["plural"] = _plural
    return env


def _plural(n: int, word: str, many: str | None = None) -> str:
    """``{{ 3 | plural("block") }}`` -> ``"3 blocks"``."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


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
    who = "Moderator" if view.moderator else view.viewer
    return f"{who}'s view: {view.year}, game turn {view.turn}"


def render_map_svg(view: View) -> str:
    viewer = None if view.moderator else Side(view.viewer)
    return render_map(default_board(), map_pieces(view), viewer=viewer, title=map_title(view), highlight=view.contested)


# ---- reports -------------------------------------------------------------------


def render_text(view: View) -> str:
    """The plain-text report (an email body)."""
    return environment().get_template(TEXT_TEMPLATE).render(view=view)


def render_html(view: View) -> str:
    """The HTML report with the inline SVG map."""
    svg = Markup(render_map_svg(view))  # built with ElementTree: every name in it is escaped
    return environment().get_template(HTML_TEMPLATE).render(view=view, svg=svg, map_title=map_title(view))
