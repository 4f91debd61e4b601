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
processes by Jinja2's bytecode cache (:func:`_bytecode_cache`). Within a process an environment
remembers the text of the macros a template hands to ``cached`` (rows of a report that recur from
recipient to recipient and step to step, :func:`_cacher`) and, in a language other than English, the
Phrases its ``say`` filter said (:func:`_sayer`); the bytes are the same with or without them.

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
import gettext as stdlib_gettext
import hashlib
from collections.abc import Callable
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from types import BuiltinFunctionType, FunctionType
from typing import Any

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
from jinja2.nodes import EvalContext
from jinja2.runtime import Context, Macro
from jinja2.utils import pass_eval_context
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


#: the marker Jinja puts on a function that takes the evaluation context (None: a Jinja that marks
#: functions another way, with which the reports use Jinja's own Context)
_EVAL_CONTEXT: Any = getattr(pass_eval_context(lambda: None), "jinja_pass_arg", None)


class _ReportContext(Context):
    """Jinja's template context with a quicker :meth:`call` for what report templates call most:
    plain functions (the gettext functions below) and macros. A template compiles every call it
    makes (``_("...")``, ``ph.side_name(s)``) to ``context.call(f, ...)``, whose general form asks
    each callable twice whether it wants the context passed; here a function's own marker is read
    once, and a macro (whose ``__call__`` takes the evaluation context) given exactly its arguments
    runs its body as ``Macro.__call__`` would, which is what the general form ends up doing. Anything else
    (classes, bound methods, functions that take the context itself) goes the general way. The
    result, and so every rendered byte, is the same either way (tests/test_render_cache.py)."""

    def call(__self, __obj: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:  # noqa: N805 - Jinja's own names
        kind = type(__obj)
        if kind is Macro:
            pass_arg: Any = _EVAL_CONTEXT
            kwargs.pop("_block_vars", None)
            kwargs.pop("_loop_vars", None)
            macro: Any = __obj
            try:  # (Macro's own attributes: a Jinja without them takes the general way)
                direct = (not kwargs and len(args) == macro._argument_count and not macro.caller
                          and not macro.catch_kwargs and not macro.catch_varargs and not __self.environment.is_async)
                func = macro._func
            except AttributeError:
                return Context.call(__self, __obj, *args, **kwargs)
            if direct:
                # what Macro.__call__ and Macro._invoke do with exactly its arguments, given by position
                try:
                    rv = func(*args)
                except StopIteration:
                    return __self.environment.undefined(
                        "value was undefined because a callable raised a StopIteration exception")
                return Markup(rv) if __self.eval_ctx.autoescape else rv
        elif kind is FunctionType or kind is BuiltinFunctionType:  # their __call__ is a method-wrapper: no marker
            pass_arg = getattr(__obj, "jinja_pass_arg", None)
            if pass_arg is not None and pass_arg is not _EVAL_CONTEXT:
                return Context.call(__self, __obj, *args, **kwargs)
        else:
            return Context.call(__self, __obj, *args, **kwargs)
        kwargs.pop("_block_vars", None)
        kwargs.pop("_loop_vars", None)
        try:
            if pass_arg is None:
                return __obj(*args, **kwargs)
            return __obj(__self.eval_ctx, *args, **kwargs)
        except StopIteration:
            return __self.environment.undefined("value was undefined because a callable raised a StopIteration exception")


def _install_gettext(env: Environment, catalog: stdlib_gettext.NullTranslations) -> None:
    """``_``, ``gettext`` and ``ngettext`` for the templates: what ``jinja2.ext.i18n`` installs with
    ``newstyle=True`` (the message, marked safe when autoescaping, then ``%`` its variables, so they
    are escaped), taking the evaluation context instead of the whole context: Jinja's ``_`` looks
    ``gettext`` up in the context and calls it through the context again, and a call of a function
    that takes the context makes a copy of it inside a block that sets variables (as the HTML report's
    content does). No template of pbem names a variable ``gettext``."""
    singular, plural = catalog.gettext, catalog.ngettext

    @pass_eval_context
    def gettext(__eval_ctx: EvalContext, __string: str, **variables: Any) -> str:
        rv = singular(__string)
        if __eval_ctx.autoescape:
            rv = Markup(rv)
        return rv % variables  # always a format string, as jinja2.ext.i18n's newstyle gettext

    @pass_eval_context
    def ngettext(__eval_ctx: EvalContext, __singular: str, __plural: str, __num: int, **variables: Any) -> str:
        variables.setdefault("num", __num)
        rv = plural(__singular, __plural, __num)
        if __eval_ctx.autoescape:
            rv = Markup(rv)
        return rv % variables

    env.globals.update(_=gettext, gettext=gettext, ngettext=ngettext)


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
    if _EVAL_CONTEXT is not None:
        env.context_class = _ReportContext
    catalog = translations(language)
    env.install_gettext_translations(catalog, newstyle=True)  # type: ignore[attr-defined]
    _install_gettext(env, catalog)  # the same functions, called more directly
    env.globals["cached"] = _cacher()
    env.filters["plural"] = _plural
    env.filters["say"] = _sayer(catalog)  # a game's Phrase (its event texts) in ``language``
    return env


def _sayer(catalog: stdlib_gettext.NullTranslations) -> Callable[[Any], str]:
    """The ``say`` filter of ``catalog``: :func:`~pbem.core.phrase.say`, quicker.

    In English (no catalog: every message is itself) a Phrase *is* what it says, its English text,
    so a text goes through as it is. In another language the Phrases said are remembered for a while
    (each with the Phrase itself, so its id is not reused while remembered): the text and the HTML
    report of one recipient say the same Phrases of one view. Either way the words are the same."""
    if type(catalog) is stdlib_gettext.NullTranslations and getattr(catalog, "_fallback", None) is None:
        def say_english(value: Any) -> str:
            return value if isinstance(value, str) else str(value)

        return say_english
    said: dict[int, tuple[Any, str]] = {}

    def say_in(value: Any) -> str:
        got = said.get(id(value))
        if got is not None and got[0] is value:
            return got[1]
        text = say(value, catalog)
        if isinstance(value, str):  # (a number is said anew: small ints share their ids)
            if len(said) >= _SAID_LIMIT:
                said.clear()
            said[id(value)] = (value, text)
        return text

    return say_in


#: how many Phrases a language's ``say`` filter remembers (a few reports' worth)
_SAID_LIMIT = 4096


def _cacher() -> Callable[..., Any]:
    """The ``cached`` function of an environment's templates: ``{{ cached(row, loc, sides) }}`` prints
    what ``{{ row(loc, sides) }}`` prints, remembered by the macro and its arguments. For a macro whose
    text depends on its arguments only (plain, hashable values: the view's frozen dataclasses,
    strings, numbers, tuples) and the environment's language, which is one per environment: the rows
    of a report that recur from recipient to recipient and from step to step are made once. A macro
    that read anything else (the template's variables) would be wrong cached: such a macro is not
    given to ``cached``. The bytes are the same either way (tests/test_render_cache.py)."""
    made: dict[tuple[Any, ...], Any] = {}

    @pass_eval_context
    def cached(__eval_ctx: EvalContext, __macro: Macro, *args: Any) -> Any:
        code = getattr(getattr(__macro, "_func", None), "__code__", None)
        if code is None:  # a Jinja whose macros are made another way: not remembered
            return __macro(__eval_ctx, *args)
        key = (code, __eval_ctx.autoescape, args)
        got = made.get(key)
        if got is None:
            if len(made) >= _CACHED_LIMIT:
                made.clear()
            got = made[key] = __macro(__eval_ctx, *args)
        return got

    return cached


#: how many macro results an environment's ``cached`` remembers (each a row of a report: a few hundred bytes)
_CACHED_LIMIT = 8192


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
