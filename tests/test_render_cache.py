"""The compiled-template cache (pbem.render._bytecode_cache) can only save time: the same bytes with
or without it, and a cache folder that cannot be written or read never stops a report."""

from __future__ import annotations

from pathlib import Path

from jinja2 import DictLoader, Environment
from markupsafe import Markup

from pbem.render import _OPTIONS, _bytecode_cache, _QuietBytecodeCache

SOURCE = "{% for n in items %}{{ n | upper }}\n{% endfor %}done {{ _('Year %(year)s', year=3) }}\n"


def _env(cache: _QuietBytecodeCache | None) -> Environment:
    env = Environment(loader=DictLoader({"t.txt.j2": SOURCE}), bytecode_cache=cache, trim_blocks=True,
                      extensions=["jinja2.ext.i18n"])
    env.install_null_translations(newstyle=True)  # type: ignore[attr-defined]
    return env


def test_a_kept_template_renders_the_same_bytes(tmp_path: Path) -> None:
    plain = _env(None).get_template("t.txt.j2").render(items=["a", "b"])
    cache = _QuietBytecodeCache(directory=str(tmp_path), pattern="__pbem_test_%s.cache")
    first = _env(cache).get_template("t.txt.j2").render(items=["a", "b"])
    assert len(list(tmp_path.glob("__pbem_test_*.cache"))) == 1  # compiled once, kept
    again = _env(cache).get_template("t.txt.j2").render(items=["a", "b"])  # a new process: loaded
    assert plain == first == again == "A\nB\ndone Year 3"


def test_a_cache_folder_that_cannot_be_used_never_stops_rendering(tmp_path: Path) -> None:
    gone = _QuietBytecodeCache(directory=str(tmp_path / "no-such-folder"), pattern="__pbem_test_%s.cache")
    assert _env(gone).get_template("t.txt.j2").render(items=["x"]) == "X\ndone Year 3"
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    cache = _QuietBytecodeCache(directory=str(damaged), pattern="__pbem_test_%s.cache")
    _env(cache).get_template("t.txt.j2")
    for f in damaged.iterdir():
        f.write_bytes(b"not bytecode")
    assert _env(cache).get_template("t.txt.j2").render(items=["y"]) == "Y\ndone Year 3"


def test_the_cache_entries_are_named_by_the_environment_options() -> None:
    cache = _bytecode_cache()
    assert cache is None or isinstance(cache, _QuietBytecodeCache)
    if isinstance(cache, _QuietBytecodeCache):
        assert cache.pattern.startswith("__pbem_") and cache.pattern.endswith("_%s.cache")
        assert set(_OPTIONS) >= {"trim_blocks", "lstrip_blocks", "autoescape", "extensions"}


# ---- what the report environment remembers between reports (cached macros, Phrases said) ----------------


def test_a_cached_macro_is_made_once_per_arguments_and_prints_what_it_would() -> None:
    from pbem import render

    made: list[tuple[str, int]] = []

    def note(name: str, n: int) -> str:
        made.append((name, n))
        return ""

    source = ("{% macro row(name, n) %}<{{ name }}:{{ n }}>{{ note(name, n) }}\n{% endmacro %}"
              "{% for name, n in items %}{{ cached(row, name, n) }}{% endfor %}|{% for name, n in items %}{{ row(name, n) }}{% endfor %}")
    for suffix, escaped in ((".txt.j2", "<a&b:1>"), (".html.j2", "<a&amp;b:1>")):
        env = Environment(loader=DictLoader({"t" + suffix: source}), autoescape=render._autoescape, trim_blocks=True)
        env.globals.update(cached=render._cacher(), note=note)
        items = [("a&b", 1), ("c", 2), ("a&b", 1)]
        made.clear()
        first = env.get_template("t" + suffix).render(items=items)
        cached_part, plain_part = first.split("|")
        assert cached_part == plain_part  # the same text as the macro called itself
        assert cached_part.startswith(escaped + "\n")
        assert made == [("a&b", 1), ("c", 2)] + items  # the cached calls made each row once, the plain ones every time
        made.clear()
        assert env.get_template("t" + suffix).render(items=items) == first  # another report: remembered
        assert made == items


def test_the_reports_are_the_same_bytes_without_what_rendering_remembers() -> None:
    """Every Caesar report in every language, rendered with the environment's remembered rows and
    Phrases (twice, so the second time all of it is remembered) and with nothing remembered."""
    from pbem import render
    from pbem.core.phrase import say
    from pbem.core.rng import Rng
    from pbem.games.caesar.rules.board import Side
    from pbem.games.caesar.rules.game import new_game
    from pbem.games.caesar.rules.playout import random_decisions
    from pbem.games.caesar.view import views
    from pbem.games.caesar.view.render import view_context
    from pbem.locale import translations

    def forgetful(language: str) -> Environment:
        env = render.environment.__wrapped__((), language)  # type: ignore[attr-defined]
        catalog = translations(language)
        env.globals["cached"] = lambda macro, *args: macro(*args)
        env.filters["say"] = lambda value: say(value, catalog)
        return env

    def rendered(env: Environment, ctx: object, language: str) -> str:
        values = dict(ctx.values)  # type: ignore[attr-defined]
        values.setdefault("language", language)
        if ctx.svg is not None:  # type: ignore[attr-defined]
            values["svg"] = Markup(ctx.svg)  # type: ignore[attr-defined]
        return env.get_template(f"caesar/{ctx.template}").render(**values)  # type: ignore[attr-defined]

    g = new_game(5)
    log = list(g.events)
    sample = []
    for _ in range(4):
        log += random_decisions(g, Rng(len(log)), 30)
        sample += [views.build_view(g, log, viewer, since=len(log) // 2) for viewer in (Side.CAESAR, Side.POMPEY, None)]
    for language in ("en", "es", "sv"):
        quick, plain = render.environment.__wrapped__((), language), forgetful(language)  # type: ignore[attr-defined]
        for _ in range(2):
            for view in sample:
                for fmt in ("text", "html"):
                    ctx = view_context(view, fmt)
                    assert rendered(quick, ctx, language) == rendered(plain, ctx, language)


def test_the_say_filter_says_what_say_says() -> None:
    from pbem import render
    from pbem.core.phrase import Phrase, say
    from pbem.locale import translations

    side = Phrase("Caesar")
    phrases = [Phrase("%(side)s attacks %(loc)s", side=side, loc="Roma"), Phrase("Game over"), "Roma", 3,
               Phrase("Battle of %(loc)s, Round %(n)s", loc="Genua", n=2)]
    for language in ("en", "es", "sv"):
        catalog = translations(language)
        filt = render._sayer(catalog)
        for _ in range(2):  # the second time from what it remembers
            assert [filt(p) for p in phrases] == [say(p, catalog) for p in phrases]
    assert render._sayer(translations("es"))(phrases[0]) != phrases[0]  # Spanish is said, not passed through
