"""Rendering reports: one Jinja2 environment for every game.

A game builds a report's context from one side's view (:meth:`GameSystem.report
<pbem.core.game.GameSystem.report>` returns a :class:`~pbem.core.game.ReportContext`);
:func:`render` renders it with the game's template under ``templates/<game>/``. Templates
receive that context and nothing else, so a report cannot show what the view does not hold.
The map, when a game draws one, comes as SVG text built with ElementTree (every name in it
escaped) and is inserted as it is.

One :class:`jinja2.Environment` for every report: ``StrictUndefined`` (a typo in
a template is an error, not an empty string), autoescape for html, svg and xml
templates, ``trim_blocks`` and ``lstrip_blocks`` for the text ones. Rendering is
deterministic: the same view gives the same bytes. Compiled templates are kept between
processes by Jinja2's bytecode cache (:func:`_bytecode_cache`).

Templates are looked up in ``pbem/templates`` inside the installed package
(the wheel puts the repository's ``templates/`` there), then in the
``templates/`` directory beside the ``pbem/`` package of a source checkout.

Languages: every fixed sentence of a template is a gettext message (Jinja2's ``jinja2.ext.i18n``,
newstyle: ``_("Year %(year)s", year=...)``, ``ngettext``). The catalogs are the ``.po`` files of
``pbem/locale/<lang>/LC_MESSAGES/pbem.po`` (shipped in the package), compiled by Babel when first
used, so neither a build step nor a committed ``.mo`` file can fall out of step with them. English
is the messages themselves (:data:`LANGUAGES`). What a game writes itself (its event texts, the phase,
the result) reaches a template as :class:`~pbem.core.phrase.Phrase` values, said in the report's
language by the ``say`` filter (``{{ line | say }}``).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from jinja2 import (
    BaseLoader,
    BytecodeCache,
    ChoiceLoader,
    Environment,
    FileSystemBytecodeCache,
    FileSystemLoader,
    PrefixLoader,
    StrictUndefined,
    TemplateNotFound,
)
from jinja2.bccache import Bucket
from markupsafe import Markup

from pbem.core.game import ReportContext
from pbem.core.phrase import say
from pbem.locale import DEFAULT_LANGUAGE, LANGUAGES, translations

__all__ = ["LANGUAGES", "DEFAULT_LANGUAGE", "environment", "render", "translations"]


_AUTOESCAPED = (".html.j2", ".svg.j2", ".xml.j2", ".html", ".svg", ".xml")
_EXTENSIONS = ("jinja2.ext.i18n",)


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
def _bytecode_cache() -> BytecodeCache | None:
    """Compiled templates kept between processes (Jinja2's own cache: a private folder of the user's
    in the temporary directory, each entry checked against its template's source), so a command
    that renders does not compile the templates again (about 0.1 s of every ``pbem inbox`` or
    resolving ``pbem submit``). The rendered bytes are the same either way. None (compile each
    time) when no such folder can be made."""
    # Jinja2 keys an entry by the template's name and source only, yet the compiled code also depends
    # on the environment's options: the file names carry a digest of ours.
    tag = hashlib.sha256(repr(sorted(_OPTIONS.items())).encode()).hexdigest()[:12]
    try:
        return _QuietBytecodeCache(pattern=f"__pbem_{tag}_%s.cache")
    except (OSError, RuntimeError):
        return None


class _QuietBytecodeCache(FileSystemBytecodeCache):
    """A cache that can only save time: an entry that cannot be read is compiled again, and one that
    cannot be written (a full or read-only temporary directory) is not kept; rendering goes on."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except OSError:
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


#: The environment's options (with the ``_autoescape`` function): what the compiled templates depend on.
_OPTIONS: dict[str, object] = {
    "trim_blocks": True,
    "lstrip_blocks": True,
    "keep_trailing_newline": True,
    "extensions": _EXTENSIONS,
    "autoescape": _AUTOESCAPED,
}


@cache
def environment(folders: tuple[tuple[str, str], ...] = (), language: str = DEFAULT_LANGUAGE) -> Environment:
    """The one Jinja environment of every report (one more per set of out-of-tree game template folders
    and per language).

    ``folders`` maps a game's name to its own template folder, for a game installed from another
    package (``GameSystem.template_folder``); the shared ``base.html.j2`` is found either way."""
    checkout = Path(__file__).resolve().parent.parent / "templates"
    loaders: list[BaseLoader] = []
    if folders:
        loaders.append(PrefixLoader({name: FileSystemLoader(path) for name, path in folders}))
    loaders += [_PackageLoader(resources.files("pbem") / "templates"), FileSystemLoader(str(checkout))]
    env = Environment(
        loader=ChoiceLoader(loaders),
        undefined=StrictUndefined,
        autoescape=_autoescape,
        trim_blocks=bool(_OPTIONS["trim_blocks"]),
        lstrip_blocks=bool(_OPTIONS["lstrip_blocks"]),
        keep_trailing_newline=bool(_OPTIONS["keep_trailing_newline"]),
        auto_reload=False,  # templates never change while pbem runs: no stat of the file per report
        extensions=list(_EXTENSIONS),
        bytecode_cache=_bytecode_cache(),
    )
    env.install_gettext_translations(translations(language), newstyle=True)  # type: ignore[attr-defined]
    env.filters["plural"] = _plural
    catalog = translations(language)
    env.filters["say"] = lambda value: say(value, catalog)  # a game's Phrase (its event texts) in ``language``
    return env


def _plural(n: int, word: str, many: str | None = None) -> str:
    """``{{ 3 | plural("block") }}`` -> ``"3 blocks"``."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def render(game: str, ctx: ReportContext, template_folder: str | None = None, language: str = DEFAULT_LANGUAGE) -> str:
    """``ctx`` rendered with ``templates/<game>/<ctx.template>`` (or the game's own ``template_folder``)
    in ``language``; deterministic: the same context gives the same bytes."""
    values = dict(ctx.values)
    values.setdefault("language", language)
    if ctx.svg is not None:
        values["svg"] = Markup(ctx.svg)  # built with ElementTree: every name in it is escaped
    env = environment(((game, template_folder),) if template_folder else (), language)
    return env.get_template(f"{game}/{ctx.template}").render(**values)
