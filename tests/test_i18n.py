"""Reports in English, Spanish and Swedish: complete catalogs, every template in every language."""

from __future__ import annotations

import re
from importlib import resources

import pytest
from babel.messages.pofile import read_po
from conftest import play_random

from pbem.core.rng import Rng
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.game import new_game
from pbem.games.caesar.view.render import view_context
from pbem.games.caesar.view.views import NextStep, build_view
from pbem.locale.translations import LANGS, extract
from pbem.render import LANGUAGES, render

PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _catalog(lang: str):  # type: ignore[no-untyped-def]
    po = resources.files("pbem") / "locale" / lang / "LC_MESSAGES" / "pbem.po"
    with po.open("rb") as f:
        return read_po(f, locale=lang)


@pytest.mark.parametrize("lang", LANGS)
def test_every_message_of_every_template_has_a_translation(lang: str) -> None:
    cat = _catalog(lang)
    messages = extract()
    assert len(messages) > 60
    for msg, where in messages:
        key = msg[0] if isinstance(msg, tuple) else msg
        entry = cat.get(key)
        assert entry is not None, f"{where}: {key!r} is not in the {lang} catalog (python -m pbem.locale.translations)"
        forms = list(entry.string) if isinstance(entry.string, tuple) else [entry.string]
        ids = list(msg) if isinstance(msg, tuple) else [msg]
        assert all(forms), f"{where}: {key!r} has no {lang} translation"
        for form in forms:  # the same placeholders, or the rendering would fail or lose a value
            assert set(PLACEHOLDER.findall(form)) == set(PLACEHOLDER.findall(ids[-1])), (lang, key, form)
    assert set(LANGUAGES) == {"en", *LANGS}


def _views():  # type: ignore[no-untyped-def]
    """Views that use every part of the templates: battles with dice, odds, since, last seen, next step."""
    out = []
    for seed in (3, 4):
        g = new_game(seed, rng=Rng(seed, practice=True))
        log = list(g.events)
        before, since = g.copy(), 0
        play_random(g, Rng(seed), log=log, until=lambda g, log: sum(e.kind == "battle-end" for e in log) >= 2)
        step = NextStep(4, "command", "2026-12-01 12:00 UTC", ("Caesar",), (("move", "Legio 8: Genua -> Roma"),))
        for viewer in (*Side, None):
            out.append(build_view(g, log, viewer, since=since, next_step=step, report_id="abc", previous=before))
        out.append(build_view(g, log, Side.POMPEY, since=len(log)))
    return out


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_every_template_renders_in_every_language(lang: str) -> None:
    english = _catalog("es")  # every msgid
    for view in _views():
        for fmt in ("text", "html"):
            out = render("caesar", view_context(view, fmt), language=lang)
            en = render("caesar", view_context(view, fmt))
            if lang == "en":
                assert out == en
                continue
            for entry in english:
                if not entry.id or isinstance(entry.id, tuple) or len(entry.id) < 12 or "%" in entry.id:
                    continue
                # the game's own event texts stay English (they may hold the same words): every use the
                # template makes of a message is translated, so the translation has fewer of them
                n = en.count(entry.id)
                assert n == 0 or out.count(entry.id) < n, f"{lang} {fmt}: untranslated {entry.id!r}"
    assert 'lang="' + lang + '"' in render("caesar", view_context(_views()[0], "html"), language=lang)


def test_spanish_and_swedish_reports_use_the_rulebooks_words() -> None:
    view = _views()[0]
    es = render("caesar", view_context(view, "text"), language="es")
    sv = render("caesar", view_context(view, "text"), language="sv")
    assert "\nCARTAS\n" in es and "turno de juego" in es and "QUÉ DEBES ENVIAR AHORA" in es
    assert "\nKORT\n" in sv and ", drag " in sv and "DETTA SKA DU SKICKA NU" in sv
    assert "Etapa 4" in es and "Etapp 4" in sv  # a pbem step: never paso / steg (strength steps)


def test_an_unknown_language_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown language 'de'; pbem speaks en, es, sv"):
        render("caesar", view_context(_views()[0], "text"), language="de")
