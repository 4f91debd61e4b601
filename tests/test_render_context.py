"""The report environment's quicker calls (pbem.render._ReportContext and its gettext functions) give
the bytes Jinja's own Context and jinja2.ext.i18n's gettext give: for the Caesar reports in every
language, and for templates that take the general way (keyword arguments, defaults, ``caller``, a
function that takes the context, loop and block variables)."""

from __future__ import annotations

from typing import Any

import pytest
from jinja2 import DictLoader, Environment, pass_context
from jinja2.ext import _gettext_alias  # type: ignore[attr-defined]
from jinja2.runtime import Context
from markupsafe import Markup

from pbem import render
from pbem.core.rng import Rng
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.game import new_game
from pbem.games.caesar.view import views
from pbem.games.caesar.view.render import view_context
from pbem.locale import translations
from test_bodies import random_decisions


def _jinja_own(env: Environment, language: str) -> Environment:
    """``env`` with Jinja's own Context and jinja2.ext.i18n's newstyle gettext, as before the quicker calls."""
    env.context_class = Context
    env.install_gettext_translations(translations(language), newstyle=True)  # type: ignore[attr-defined]
    env.globals["_"] = _gettext_alias
    return env


def _render(env: Environment, ctx: Any, language: str) -> str:
    values = dict(ctx.values)
    values.setdefault("language", language)
    if ctx.svg is not None:
        values["svg"] = Markup(ctx.svg)
    return env.get_template(f"caesar/{ctx.template}").render(**values)


def test_the_quicker_calls_are_in_use() -> None:
    assert render.environment().context_class is render._ReportContext


@pytest.mark.parametrize("language", ["en", "es", "sv"])
def test_caesar_reports_are_the_bytes_of_jinjas_own_calls(language: str) -> None:
    quick = render.environment.__wrapped__((), language)  # type: ignore[attr-defined]
    plain = _jinja_own(render.environment.__wrapped__((), language), language)  # type: ignore[attr-defined]
    assert quick.context_class is render._ReportContext and plain.context_class is Context
    for seed in (3, 11):
        g = new_game(seed)
        log = list(g.events) + random_decisions(g, Rng(seed + 1), 80)
        for viewer in (Side.CAESAR, Side.POMPEY, None):
            view = views.build_view(g, log, viewer, since=len(log) // 3)
            for fmt in ("text", "html"):
                ctx = view_context(view, fmt)
                assert _render(quick, ctx, language) == _render(plain, ctx, language)


@pass_context
def _who(context: Any, prefix: str) -> str:
    return f"{prefix}{context.get('who', '?')}"


GENERAL = {
    "m.html.j2": (
        "{% macro box(a, b='B', c=none) %}<{{ a }}|{{ b }}|{{ c }}>{% endmacro %}"
        "{% macro wrap(x) %}[{{ caller(x) }}]{% endmacro %}"
        "{% macro many() %}{{ varargs | join(',') }}{{ kwargs | dictsort | join(',') }}{% endmacro %}"
        "{% set who = 'block & co' %}"
        "{% for i in items %}{% set n = i * 2 %}{{ box(i) }}{{ box(i, c=n) }}{{ box(a=i, b='<b>') }}"
        "{{ _('%(n)s items & more', n=n) }}{{ _('%(w)s!', w=who) }}{{ ngettext('%(num)s x of %(w)s', '%(num)s xs', i, w=who) }}"
        "{{ who_is('>') }}"
        "{% call(v) wrap(i) %}{{ v }}&{{ _('in') }}{% endcall %}{{ many(1, 2, k=i) }}{{ gettext('plain') }}"
        "{% endfor %}{{ 'a b'.split() | join('+') }}"
    ),
}


@pytest.mark.parametrize("language", ["en", "es"])
def test_general_calls_are_the_bytes_of_jinjas_own_calls(language: str) -> None:
    def env(own: bool) -> Environment:
        e = Environment(loader=DictLoader(GENERAL), autoescape=True, extensions=["jinja2.ext.i18n"])
        e.context_class = render._ReportContext
        catalog = translations(language)
        e.install_gettext_translations(catalog, newstyle=True)  # type: ignore[attr-defined]
        render._install_gettext(e, catalog)
        e.globals["who_is"] = _who
        return _jinja_own(e, language) if own else e

    quick = env(False).get_template("m.html.j2").render(items=[1, 2])
    assert quick == env(True).get_template("m.html.j2").render(items=[1, 2])
    assert "&lt;b&gt;" in quick and "block &amp; co!" in quick and "1 x of block &amp; co" in quick
