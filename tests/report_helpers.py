"""Rendering a Julius Caesar view as the pipeline does (the game's context, the core's templates)."""

from __future__ import annotations

from pbem import render
from pbem.games.caesar.view.render import map_pieces, view_context
from pbem.games.caesar.view.views import View

__all__ = ["map_pieces", "render_html", "render_text"]


def render_text(view: View) -> str:
    return render.render("caesar", view_context(view, "text"))


def render_html(view: View) -> str:
    return render.render("caesar", view_context(view, "html"))
