"""The command line's frame: the ``pbem`` group, how errors are shown, shared options and helpers.

Library errors become one-line messages (exit 1); misuse exits 2; a bug in pbem shows its traceback
and exits 3. Nothing heavy is imported here (no SQL, no templates, no cryptography), so
``pbem --help`` and ``pbem --version`` load click and little else; each command imports what it
needs when it runs.
"""
from __future__ import annotations

import contextlib
import errno
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from pbem.errors import PbemError

if TYPE_CHECKING:
    from pbem.store import Home

F = TypeVar("F", bound=Callable[..., Any])
ENGINE_ERROR_EXIT = 3  # a bug in pbem; 1: the user's error (ClickException), 2: misuse (UsageError)
DEFAULT_HOME = "./pbem-home"
_MAIL_LINE = 76  # order lines longer than this may be wrapped by email programs
DEMO_GAME = "caesar-demo"
T = TypeVar("T")


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("pbem")
    except Exception:  # noqa: BLE001 - running from a checkout that is not installed
        return "0.2.0"


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: the installed version is looked up only when asked (importlib.metadata takes
    time to import, and every command would pay it)."""
    if not value or ctx.resilient_parsing:
        return
    click.echo(f"pbem, version {_version()}")
    ctx.exit()


@dataclass
class Context:
    home: Path
    debug: bool
    home_given: bool = False  # --home or PBEM_HOME was given (not the default folder)

    def open_home(self) -> Home:
        from pbem.store import Home

        return Home(self.home)


class PbemGroup(click.Group):
    """Turns library errors into ``click.ClickException`` (exit 1) unless ``--debug``."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise  # click exits quietly when the reader (| head) goes away
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except (PbemError, OSError, UnicodeDecodeError) as exc:
            obj = ctx.obj
            if isinstance(obj, Context) and obj.debug:
                raise
            raise click.ClickException(_message(exc)) from exc
        except Exception as exc:  # noqa: BLE001 - EngineError or any other bug: never "your input was wrong"
            if _is_db_error(exc):  # a game file the store could not name more precisely: the user's to fix
                if isinstance(ctx.obj, Context) and ctx.obj.debug:
                    raise
                raise click.ClickException(_message(exc)) from exc
            import traceback

            click.echo("".join(traceback.format_exception(exc)).rstrip(), err=True)
            click.echo(f"Error: pbem failed: {type(exc).__name__}: {exc}\nThis is a bug in pbem, not in your input "
                       "(nothing was half-changed: a game's work is committed whole or not at all); please report "
                       f"it with the traceback above. Exit status {ENGINE_ERROR_EXIT}.", err=True)
            ctx.exit(ENGINE_ERROR_EXIT)


def _message(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        where = f" {exc.filename}" if exc.filename else ""
        if exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):  # not a path or permission problem
            return (f"cannot write{where}: {exc.strerror or exc} (the disk is full or over a size limit); "
                    "nothing stored before was lost: free some space and run the command again")
        return f"cannot use{where}: {exc.strerror or exc}; check the path and its permissions"
    if isinstance(exc, UnicodeDecodeError):
        return (f"a file is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); "
                "save it as UTF-8 text")
    if _is_db_error(exc):  # a database problem the store did not name more precisely
        return (f"the game file cannot be used: {getattr(exc, 'orig', exc)}; check the file's permissions, or restore it "
                "from a backup if it is damaged")
    return str(exc)


def json_option(f: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for programs instead of text.")(f)


def game_option(required: bool = True) -> Callable[[F], F]:
    return click.option("--game", "game_id", required=required, metavar="GAME", help="The game id.")


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False))


def _each_game(home: Home | None, game_id: str | None, work: Callable[[Any], T], *, recover: bool = True,
               quick: Callable[[str], T | None] | None = None) -> tuple[list[T], dict[str, str]]:
    """Run ``work(store)`` for one game (``--game``: its errors stop the command as usual)
    or for every game in the folder, where a damaged or unreadable game file is reported
    (game id -> message, also printed to stderr) and the other games are still done.
    ``home``: the folder (None: the command's, opened only when a game needs the store).
    ``quick(game id)``, when given, is tried first: its result stands unless it is None."""
    from pbem.records import games_in

    def one(gid: str) -> T:
        found = quick(gid) if quick is not None else None
        if found is not None:
            return found
        with (home or _obj().open_home()).open(gid, recover=recover) as st:
            return work(st)

    if game_id:
        return [one(game_id)], {}
    done: list[T] = []
    failed: dict[str, str] = {}
    for gid in games_in(home.path if home is not None else _obj().home):
        try:
            done.append(one(gid))
        except Exception as exc:  # noqa: BLE001 - only the game file's own errors: the others go on
            if not (isinstance(exc, PbemError) or _is_db_error(exc)):
                raise
            if _obj().debug:
                raise
            failed[gid] = _message(exc)
            click.echo(f"Error: game {gid} skipped: {failed[gid]}", err=True)
    return done, failed


@click.group(cls=PbemGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="PBEM_HOME",
    default=DEFAULT_HOME,
    show_default=True,
    help="The folder of game files (env PBEM_HOME).",
)
@click.option("--debug", is_flag=True, help="Show tracebacks instead of short error messages.")
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and exit.")
@click.pass_context
def main(ctx: click.Context, home: Path, debug: bool) -> None:
    """Adjudicate play-by-email games of Julius Caesar (Columbia Games, 2010).

    \b
    Example:
        pbem demo --home /tmp/pbem-demo
        pbem --home /tmp/pbem-demo status
    """
    given = ctx.get_parameter_source("home") not in (None, click.core.ParameterSource.DEFAULT)
    ctx.obj = Context(home, debug, given)


#: How many new container objects a ``pbem`` command makes before the garbage collector looks at the
#: young ones (Python's default is 700). A command imports SQLAlchemy, pydantic, Jinja and a game's
#: rules: some 70,000 objects the collector tracks, nearly all of which live until the exit. With the
#: default, about 160 collections run while they are made and find some 500 objects of garbage between
#: them (60-90 ms of the 0.65-1.0 s `import pbem.store` takes here), and more run while the command
#: works on its game. The older generations keep their default rhythm relative to this one, so a long
#: `pbem run --every` still frees its cycles (mypy sets 200,000 for the same reason).
GC_YOUNG = 100_000


def run(argv: Sequence[str] | None = None) -> None:
    """The ``pbem`` program (its console script, ``python -m pbem``): :data:`main`, then a quick exit.

    A command stores its work whole before it returns, and a game loses nothing when the process is
    killed at any point (the crash tests kill it everywhere), so once :data:`main` is done all that
    Python's own shutdown has left to do is free the memory: taking apart SQLAlchemy's and
    pydantic's modules and the command's data, some 0.1-0.2 s of every command that opened a game
    file. Here the output is flushed and the exit handlers run (logging's, multiprocessing's), then
    the process ends without that teardown, as mypy ends its runs. The process exits the ordinary
    way while another thread is still running (the ordinary exit waits for it), or while a profiler,
    debugger or coverage tool watches it (``python -m cProfile -o FILE -m pbem ...`` writes FILE after
    the program returns).

    The garbage collector's young generation is also made larger (:data:`GC_YOUNG`) for the command."""
    import atexit
    import gc
    import os
    import threading

    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])
    try:
        main.main(args=list(argv) if argv is not None else None, prog_name="pbem")
        code: Any = 0
    except SystemExit as exc:
        code = exc.code
    if threading.active_count() > 1 or sys.gettrace() is not None or sys.getprofile() is not None:
        sys.exit(code)
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # sys.exit("message"): the message on stderr, status 1, as Python does it
        print(code, file=sys.stderr)
        status = 1
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_handlers is None:  # a Python without it: the ordinary exit
        sys.exit(status)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or a full disk: Python's own exit would say 120
            status = status or 120
    run_exit_handlers()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()  # what the exit handlers printed
    os._exit(status)


def _obj() -> Context:
    obj = click.get_current_context().find_object(Context)
    assert obj is not None
    return obj


def _side_name(text: str, sides: Sequence[str], what: str = "side") -> str:
    """``text`` as one of ``sides`` (case does not matter); a UsageError names the sides."""
    for s in sides:
        if s.lower() == text.strip().lower():
            return s
    raise click.UsageError(f"{text!r} is not a {what} of this game; use {' or '.join(sides)}")


def _game_sides(game_id: str | None, *, moderator: bool = False) -> list[str]:
    """The sides of ``game_id`` in the home (of every game system when the game is not here)."""
    from pbem import store as store_mod
    from pbem.games import find_game, game_names

    home = _obj().open_home()
    if game_id and game_id in home.games():
        with home.open(game_id, recover=False) as st:
            sides = list(st.system.sides)
    else:
        sides = [s for name in game_names() for s in find_game(name).sides]
    return sides + ([store_mod.MODERATOR] if moderator else [])


def _pairs(values: Sequence[str], option: str) -> dict[str, str]:
    """``SIDE=VALUE`` items of a repeated option, by side (as typed)."""
    out: dict[str, str] = {}
    for v in values:
        side, eq, rest = v.partition("=")
        if not eq or not side.strip():
            raise click.UsageError(f"{option} takes SIDE=VALUE, like {option} Caesar={rest or 'VALUE'}; got {v!r}")
        if side.strip().lower() in {k.lower() for k in out}:
            raise click.UsageError(f"{option} names {side.strip()} twice")
        out[side.strip()] = rest
    return out


def _computer_turns(game_id: str | None = None) -> None:
    """Let computer players answer the steps that wait for them (after a step may have opened)."""
    from pbem.computer import play_computer_turns

    for gid, receipt in play_computer_turns(_obj().open_home(), game_id):
        from pbem.receipts import describe_receipt

        for line in describe_receipt(receipt):
            click.echo(f"{gid}: computer: {line}", err=True)


def _is_db_error(exc: BaseException) -> bool:
    """A database error (``sqlite3``'s, or SQLAlchemy's DBAPIError), told apart without importing
    SQLAlchemy: if it was never imported, no such error of it can have been raised."""
    import sqlite3

    sa = sys.modules.get("sqlalchemy.exc")
    return isinstance(exc, sqlite3.Error) or (sa is not None and isinstance(exc, sa.DBAPIError))


class _Bar:
    """One click progress bar per stage of a long pass (``progress(stage, done, total)``)."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.bar: Any = None
        self.stage = ""
        self.done = 0

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.bar is None or stage != self.stage:
            self.close()
            self.bar = click.progressbar(length=max(total, 1), label=stage, file=self.stream, show_pos=True)
            self.bar.__enter__()
            self.stage, self.done = stage, 0
        if done > self.done:
            self.bar.update(done - self.done)
            self.done = done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


def error_stream() -> Any:
    """Standard error as it is now (click's test runner swaps it; click 8.5 deprecates get_text_stream)."""
    return sys.stderr


@contextlib.contextmanager
def progress_bar(enabled: bool = True, stream: Any = None) -> Iterator[Callable[[str, int, int], None] | None]:
    """A progress callback that draws bars on standard error when it is a terminal (and ``enabled``);
    None otherwise, so output to a file or a pipe (cron, tests) stays exactly as it was."""
    out: Any = stream if stream is not None else error_stream()
    isatty: Callable[[], bool] | None = getattr(out, "isatty", None)
    if not enabled or isatty is None or not isatty():
        yield None
        return
    bar = _Bar(out)
    try:
        yield bar
    finally:
        bar.close()
