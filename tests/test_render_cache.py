"""The compiled-template cache (pbem.render._bytecode_cache) can only save time: the same bytes with
or without it, and a cache folder that cannot be written or read never stops a report."""

from __future__ import annotations

from pathlib import Path

from jinja2 import DictLoader, Environment

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
