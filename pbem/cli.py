"""The ``pbem`` command line: parse options, call the library, print. No rules here.

Every command opens the game folder (``--home``, env ``PBEM_HOME``), which first
finishes any unfinished work of the games it touches (see :mod:`pbem.store`).
Library errors become one-line messages (exit 1); ``--debug`` shows tracebacks.
"""

from __future__ import annotations

import json
import secrets
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

import click
from sqlalchemy.exc import DBAPIError

from pbem import store as store_mod
from pbem.envelope import (
    MAX_SUBMISSION_BYTES,
    hash_password,
    key_fingerprint,
    load_private_key,
    new_envelope,
    password_submission,
    sign_envelope,
    write_keypair,
)
from pbem.errors import PbemError
from pbem.store import GameSetup, Home, PlayerSetup, Receipt, StoreError, Verdict

F = TypeVar("F", bound=Callable[..., Any])
ENGINE_ERROR_EXIT = 3  # a bug in pbem; 1: the user's error (ClickException), 2: misuse (UsageError)
DEFAULT_HOME = "./pbem-home"
_MAIL_LINE = 76  # order lines longer than this may be wrapped by email programs
DEMO_GAME = "caesar-demo"


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("pbem")
    except Exception:  # noqa: BLE001 - running from a checkout that is not installed
        return "0.1.0"


@dataclass
class Context:
    home: Path
    debug: bool

    def open_home(self) -> Home:
        return Home(self.home)


class PbemGroup(click.Group):
    """Turns library errors into ``click.ClickException`` (exit 1) unless ``--debug``."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise  # click exits quietly when the reader (| head) goes away
        except (PbemError, OSError, UnicodeDecodeError, DBAPIError) as exc:
            obj = ctx.obj
            if isinstance(obj, Context) and obj.debug:
                raise
            raise click.ClickException(_message(exc)) from exc
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as exc:  # noqa: BLE001 - EngineError or any other bug: never "your input was wrong"
            import traceback

            click.echo("".join(traceback.format_exception(exc)).rstrip(), err=True)
            click.echo(f"Error: pbem failed: {type(exc).__name__}: {exc}\nThis is a bug in pbem, not in your input "
                       "(nothing was half-changed: a game's work is committed whole or not at all); please report "
                       f"it with the traceback above. Exit status {ENGINE_ERROR_EXIT}.", err=True)
            ctx.exit(ENGINE_ERROR_EXIT)


def _message(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        where = f" {exc.filename}" if exc.filename else ""
        return f"cannot use{where}: {exc.strerror or exc}; check the path and its permissions"
    if isinstance(exc, UnicodeDecodeError):
        return (f"a file is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); "
                "save it as UTF-8 text")
    if isinstance(exc, DBAPIError):  # a database problem the store did not name more precisely
        return (f"the game file cannot be used: {exc.orig}; check the file's permissions, or restore it "
                "from a backup if it is damaged")
    return str(exc)


def json_option(f: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for programs instead of text.")(f)


def game_option(required: bool = True) -> Callable[[F], F]:
    return click.option("--game", "game_id", required=required, metavar="GAME", help="The game id.")


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False))


T = TypeVar("T")


def _each_game(home: Home, game_id: str | None, work: Callable[[Any], T], *,
               recover: bool = True) -> tuple[list[T], dict[str, str]]:
    """Run ``work(store)`` for one game (``--game``: its errors stop the command as usual)
    or for every game in the folder, where a damaged or unreadable game file is reported
    (game id -> message, also printed to stderr) and the other games are still done."""
    if game_id:
        with home.open(game_id, recover=recover) as st:
            return [work(st)], {}
    done: list[T] = []
    failed: dict[str, str] = {}
    for gid in home.games():
        try:
            with home.open(gid, recover=recover) as st:
                done.append(work(st))
        except (PbemError, DBAPIError) as exc:
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
@click.version_option(_version(), "--version", prog_name="pbem")
@click.pass_context
def main(ctx: click.Context, home: Path, debug: bool) -> None:
    """Adjudicate play-by-email games of Julius Caesar (Columbia Games, 2010).

    \b
    Example:
        pbem demo --home /tmp/pbem-demo
        pbem --home /tmp/pbem-demo status
    """
    ctx.obj = Context(home, debug)


def _obj() -> Context:
    obj = click.get_current_context().find_object(Context)
    assert obj is not None
    return obj


# ---- games -----------------------------------------------------------------------------


def _side_name(text: str, sides: Sequence[str], what: str = "side") -> str:
    """``text`` as one of ``sides`` (case does not matter); a UsageError names the sides."""
    for s in sides:
        if s.lower() == text.strip().lower():
            return s
    raise click.UsageError(f"{text!r} is not a {what} of this game; use {' or '.join(sides)}")


def _game_sides(game_id: str | None, *, moderator: bool = False) -> list[str]:
    """The sides of ``game_id`` in the home (of every game system when the game is not here)."""
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


def _player(side: str, email: str, key: Path | None, password: str | None, option: str = "") -> PlayerSetup:
    if (key is None) == (password is None):
        raise click.UsageError(
            f"give {side} exactly one of --key {side}=FILE.pub or --password {side}=PASSWORD"
        )
    if key is not None:
        option = option or f"--key {side}={key}"
        try:
            text = key.read_text(encoding="utf-8").strip()
        except UnicodeDecodeError:
            raise click.ClickException(f"{option}: this file is not a public key (not text); give the one-line "
                                       ".pub file from `pbem keygen`") from None
        try:
            key_fingerprint(text)
        except PbemError as exc:
            raise click.ClickException(f"{option}: {exc}") from None
        return PlayerSetup(side, email, public_key=text)
    assert password is not None
    return PlayerSetup(side, email, password_hash=hash_password(password))


_OLD_SIDE_OPTIONS = ("caesar", "pompey")  # the spellings of release 0.1: --caesar-email, --pompey-key, ...


def _old_side_options(f: F) -> F:
    """``--caesar-email``, ``--pompey-key``, ... (release 0.1; kept for one release: use --player/--key/--password)."""
    for side in reversed(_OLD_SIDE_OPTIONS):
        f = click.option(f"--{side}-password", hidden=True)(f)
        f = click.option(f"--{side}-key", type=click.Path(exists=True, dir_okay=False, path_type=Path), hidden=True)(f)
        f = click.option(f"--{side}-email", hidden=True)(f)
    return f


@main.command()
@click.argument("game_id", metavar="GAME")
@click.option("--system", default="caesar", show_default=True, help="The game system (`pbem games --systems` lists them).")
@click.option("--player", "emails", multiple=True, metavar="SIDE=EMAIL", help="A side's email address (repeat for each side).")
@click.option("--key", "keys", multiple=True, metavar="SIDE=FILE", help="A side's public key, FILE.pub from `pbem keygen`.")
@click.option("--password", "passwords", multiple=True, metavar="SIDE=PASSWORD", help="Password mode for a side (stored only as a scrypt hash).")
@click.option("-o", "--option", "options", multiple=True, metavar="NAME=VALUE", help="A game option (`pbem games --systems` lists each game's), like -o battles=interactive.")
@click.option("--moderator-email", default="", help="Where the moderator's reports go.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="The game's random seed (default: a random one, printed).")
@click.option("--scenario", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Start from a custom position (a position document or a compact spec, JSON).")
@click.option("--tournament", is_flag=True, hidden=True)
@click.option("--free-deployment", is_flag=True, hidden=True)
@click.option("--battles", hidden=True)
@click.option("--deadline", metavar="DURATION", help="Time for each step, like 72h, 3d or 1d12h; `pbem tick` applies defaults after it.")
@_old_side_options
@json_option
def new(
    game_id: str, system: str, emails: tuple[str, ...], keys: tuple[str, ...], passwords: tuple[str, ...],
    options: tuple[str, ...], moderator_email: str, seed: int | None, scenario: Path | None, tournament: bool,
    free_deployment: bool, battles: str | None, deadline: str | None, as_json: bool, **old: Any,
) -> None:
    """Create a game and register a player for each side.

    \b
    Example:
        pbem new club-1 --player Caesar=ann@example.org --key Caesar=ann.pub \\
            --player Pompey=bob@example.org --password 'Pompey=open sesame' --deadline 72h
    """
    from pbem.games import find_game

    game_system = find_game(system)
    sides = list(game_system.sides)
    by_side: dict[str, dict[str, Any]] = {s: {"email": "", "key": None, "password": None} for s in sides}
    key_option: dict[str, str] = {}  # how the user named each key file, for messages
    for what, given in (("email", emails), ("key", keys), ("password", passwords)):
        option = "--player" if what == "email" else f"--{what}"
        for side, value in _pairs(given, option).items():
            name = _side_name(side, sides)
            by_side[name][what] = Path(value) if what == "key" else value
            key_option[name] = f"--key {side}={value}"
    for old_side in _OLD_SIDE_OPTIONS:  # release 0.1's --caesar-email, ... (documented as deprecated)
        for what in ("email", "key", "password"):
            old_value = old.get(f"{old_side}_{what}")
            if old_value is not None:
                name = _side_name(old_side, sides)
                by_side[name][what] = old_value
                if what == "key":
                    key_option[name] = f"--{old_side}-key {old_value}"
    for side, conf in by_side.items():
        if conf["key"] is not None and not Path(conf["key"]).is_file():
            raise click.UsageError(f"{key_option[side]}: no such file")
    players = tuple(_player(side, c["email"], c["key"], c["password"], key_option.get(side, ""))
                    for side, c in by_side.items())
    given_passwords = [c["password"] for c in by_side.values() if c["password"] is not None]
    if len(set(given_passwords)) != len(given_passwords):
        raise click.ClickException(f"{' and '.join(sides)} were given the same password; each player needs his "
                                   "own, or either could send orders for the other")
    values: dict[str, str | bool] = {}
    for name, value in _pairs(options, "--option").items():
        values[name.replace("-", "_")] = value
    if tournament:  # release 0.1's Julius Caesar flags: -o tournament=yes, -o free_deployment=yes, -o battles=...
        values["tournament"] = True
    if free_deployment:
        values["free_deployment"] = True
    if battles is not None:
        values["battles"] = battles
    position = None
    if scenario is not None:
        if values.keys() - {"battles"} or seed is not None:
            raise click.UsageError("with --scenario the seed and the position's options come from the scenario file; "
                                   "drop --seed and every -o but battles")
        try:
            text = Path(scenario).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise click.ClickException(f"cannot read the scenario file {scenario}: {exc}") from None
        position = game_system.load_position(text, str(scenario))
    if seed is None:
        seed = secrets.randbelow(2**31)
    setup = GameSetup(
        game_id=game_id,
        players=players,
        seed=seed,
        system=game_system.name,
        options=values,
        scenario=position,
        deadline=store_mod.parse_duration(deadline) if deadline else None,
        moderator_email=moderator_email,
    )
    with _obj().open_home().create(setup) as st:
        status = st.status()
        record = st.game()
        reports = len(st.outbox())
        chosen = store_mod.game_options(record)
    if as_json:
        _echo_json({"game": game_id, "system": record.system, "file": str(st.path), "seed": record.seed,
                    "options": chosen, "status": status.to_json(), "reports": reports})
        return
    dl = store_mod.format_duration(record.deadline_seconds) if record.deadline_seconds else "none"
    shown = ", ".join(f"{k} {'yes' if v is True else 'no' if v is False else v}" for k, v in chosen.items())
    click.echo(f"created game {game_id} in {st.path}")
    click.echo(f"{game_system.title}: seed {record.seed}, {shown + ', ' if shown else ''}deadline per step {dl}")
    click.echo(f"step {status.step}: {status.title} (waits for {', '.join(status.awaiting)})")
    click.echo(f"{reports} reports queued (see `pbem report --game {game_id} --side {sides[0]}`)")


@main.command()
@json_option
def games(as_json: bool) -> None:
    """List the games in the folder.

    \b
    Example:
        pbem --home ~/club games
    """
    home = _obj().open_home()

    def row(st: Any) -> dict[str, Any]:
        s = st.status()
        return {"game": st.game_id, "system": st.system.name, "file": str(st.path), "step": s.step,
                "where": s.summary.headline, **s.summary.facts, "over": s.over, "result": s.result}

    rows, failed = _each_game(home, None, row)
    if as_json:
        _echo_json(rows)
    else:
        if not rows and not failed:
            click.echo(f"no games in {home.path} (create one with `pbem new`)")
        for r in rows:
            where = f"over: {r['result']}" if r["over"] else f"step {r['step']}, {r['where']}"
            click.echo(f"{r['game']}  {where}  {r['file']}")
    if failed:
        sys.exit(1)


@main.command()
@game_option(required=False)
@click.option("--now", metavar="TIME", help="Judge deadlines at this time (ISO 8601; default: now).")
@json_option
def status(game_id: str | None, now: str | None, as_json: bool) -> None:
    """Show each game's open step, whom it waits for, and its deadline.

    \b
    Example:
        pbem status --game club-1
    """
    home = _obj().open_home()
    when = store_mod.parse_time(now) if now is not None else None
    out, failed = _each_game(home, game_id, lambda st: st.status(when))
    if as_json:
        _echo_json([s.to_json() for s in out])
    elif not out and not failed:
        click.echo(f"no games in {home.path} (create one with `pbem new`)")
    for s in out if not as_json else ():
        click.echo(f"{s.game}: step {s.step}, {s.title}")
        if s.over:
            if s.result:
                click.echo(f"  {s.result}")
            continue
        pending = [a for a in s.awaiting if a not in s.received]
        line = f"  waits for {', '.join(pending) or 'nobody'}"
        if s.received:
            line += f" ({', '.join(s.received)}: orders in)"
        click.echo(line)
        if s.deadline:
            click.echo(f"  deadline {s.deadline}{' (overdue: run `pbem tick`)' if s.overdue else ''}")
    if failed:
        sys.exit(1)


# ---- keys and submissions ------------------------------------------------------------------


@main.command()
@click.argument("prefix", type=click.Path(dir_okay=False, path_type=Path))
def keygen(prefix: Path) -> None:
    """Write a new key pair: PREFIX.key (private) and PREFIX.pub (public).

    \b
    Example:
        pbem keygen ann        # writes ann.key and ann.pub; send ann.pub to the moderator
    """
    from pbem.envelope import key_fingerprint

    if prefix.suffix in (".key", ".pub") and prefix.stem:  # `pbem keygen ann.key` means ann.key and ann.pub
        prefix = prefix.with_suffix("")
    private, public = write_keypair(prefix)
    click.echo(f"wrote {private} (private: keep it secret) and {public} (public: give it to the moderator)")
    click.echo(f"fingerprint {key_fingerprint(public.read_text(encoding='utf-8').strip())}")


@main.command()
@game_option()
@click.option("--side", required=True, help="Your side (as your report names it: Caesar, Pompey).")
@click.option("--step", type=int, required=True, help="The step the orders answer (see your report).")
@click.option("--orders", "orders_file", type=click.File("r", encoding="utf-8"), default="-", show_default=True, help="The order lines (a file, or - for standard input).")
@click.option("--key", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Your private key (FILE.key).")
@click.option("--password", envvar="PBEM_PASSWORD", help="Password mode instead of a key (env PBEM_PASSWORD).")
@click.option("--armor", is_flag=True, help="Print the text block for an email body instead of JSON.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write to this file instead of standard output.")
@click.option("--nonce", metavar="HEX32", help="Fix the nonce (tests and examples only; default: random).")
@click.option("--time", "when", metavar="TIME", help="Fix the signing time, YYYY-MM-DDTHH:MM:SSZ (default: now).")
def sign(game_id: str, side: str, step: int, orders_file: Any, key: Path | None, password: str | None,
         armor: bool, out: Path | None, nonce: str | None, when: str | None) -> None:
    """Sign orders for a step: signed JSON (or --armor for email) to stdout or --out.

    \b
    Example:
        printf 'discard 2/1\\nplay 3/2\\n' | pbem sign --game club-1 --side Caesar --step 1 \\
            --key ann.key --armor
    """
    if (key is None) == (password is None):
        raise click.UsageError("give exactly one of --key FILE.key or --password")
    side = _side_name(side, _game_sides(game_id))
    try:
        text = orders_file.read()
    except UnicodeDecodeError as exc:
        name = getattr(orders_file, "name", "-")
        raise click.ClickException(f"--orders {'-' if name == '<stdin>' else name}: the orders are not UTF-8 text "
                                   f"(byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); save them as "
                                   "UTF-8 text") from None
    env = new_envelope(game_id, side, step, text, nonce=nonce, time=when)
    if key is not None:
        sub = sign_envelope(env, load_private_key(key.read_bytes()))
    else:
        assert password is not None
        sub = password_submission(env, password)
    text = sub.to_armor() if armor else sub.to_json()
    long = [n for n, line in enumerate(env.orders, 1) if len(line) > _MAIL_LINE]
    if armor and long:  # a wrapped order line no longer matches the signature
        click.echo(f"warning: order line{'s' if len(long) > 1 else ''} {', '.join(map(str, long))} "
                   f"{'are' if len(long) > 1 else 'is'} longer than {_MAIL_LINE} characters; some email programs "
                   "wrap long lines, which breaks the signature: use short names (L8, Eq1) or send the JSON file "
                   "(pbem sign without --armor) as an attachment",
                   err=True)
    size = len(text.encode("utf-8"))
    if size > MAX_SUBMISSION_BYTES:  # `pbem submit` would refuse it: say so now, not after it was mailed
        raise click.ClickException(f"the signed orders would be {size} bytes, over the limit of "
                                   f"{MAX_SUBMISSION_BYTES} for a submission; send fewer or shorter order lines")
    if out is not None:
        out.write_text(text, encoding="utf-8")
        click.echo(f"wrote {out}", err=True)
    else:
        click.echo(text, nl=False)


def describe_receipt(r: Receipt) -> list[str]:
    who = f"{r.side}'s orders for step {r.step}" if r.side else "the submission"
    if r.verdict is Verdict.ACCEPTED:
        lines = [f"accepted: submission #{r.submission}, {who}"
                 + (f" (replaces submission #{r.related})" if r.related else "")]
        if r.resolved:
            lines.append(f"step {r.step} resolved; step {r.next_step} is next: {r.next_title}")
        elif r.waiting_for:
            lines.append(f"sealed until step {r.step} resolves; it waits for {', '.join(r.waiting_for)}")
        else:
            lines.append(f"step {r.step} has been resolved since")
        return lines
    if r.verdict is Verdict.DUPLICATE:
        return [f"duplicate: submission #{r.submission} is an exact resend of submission #{r.related}; nothing changed"]
    if r.verdict is Verdict.SUPERSEDED:
        return [f"superseded: submission #{r.submission} was replaced by submission #{r.related}"]
    head = f"rejected: submission #{r.submission}" + (f" ({r.side}, step {r.step})" if r.side else "")
    lines = [f"{head}: {r.reason}"]
    for e in r.errors:
        if e["line"]:
            lines.append(f"  line {e['line']}: {e['text']}")
            lines.append(f"    {e['message']}")
        else:
            lines.append(f"  - {e['message']}")
    if r.stands:
        lines.append(f"your submission #{r.stands} for step {r.step} still stands; send corrected orders to replace it")
    return lines


@main.command()
@click.argument("file", type=click.File("rb"))
@game_option(required=False)
@json_option
def submit(file: Any, game_id: str | None, as_json: bool) -> None:
    """Receive a submission (signed JSON, armored text or a whole email) and print the verdict.

    FILE is a path or - for standard input. The game is read from the submission
    unless --game names it. Exit code 1 when the submission is rejected.

    \b
    Example:
        pbem submit orders.json
        pbem submit --game club-1 - < message.eml
    """
    raw = file.read(MAX_SUBMISSION_BYTES + 1)  # never more: a runaway input must not fill memory or the game file
    source = getattr(file, "name", "-")
    if len(raw) > MAX_SUBMISSION_BYTES:
        raise click.ClickException(f"{'standard input' if source in ('-', '<stdin>') else source} is larger than "
                                   f"{MAX_SUBMISSION_BYTES} bytes, the limit for a submission; nothing was stored "
                                   "(send only the signed file or the block that `pbem sign` printed)")
    receipt = _obj().open_home().receive(raw, source=str(source), game=game_id)
    if as_json:
        _echo_json(receipt.to_json())
    else:
        for line in describe_receipt(receipt):
            click.echo(line)
    if receipt.verdict is Verdict.REJECTED:
        sys.exit(1)


# ---- reading a game ------------------------------------------------------------------------


@main.command()
@game_option()
@click.option("--side", required=True, help="Whose report: a side, or moderator.")
@click.option("--format", "fmt", type=click.Choice(store_mod.FORMATS), default="text", show_default=True)
@click.option("--step", type=int, help="The report sent when this step opened (default: the latest).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write to this file.")
def report(game_id: str, side: str, fmt: str, step: int | None, out: Path | None) -> None:
    """Print the latest report for a side (or the moderator).

    \b
    Example:
        pbem report --game club-1 --side Caesar --format html --out caesar.html
    """
    side = _side_name(side, _game_sides(game_id, moderator=True))
    with _obj().open_home().open(game_id) as st:
        row = st.report(side, fmt, step)
    body = row.body or ""
    if out is not None:
        out.write_text(body, encoding="utf-8")
        click.echo(f"wrote {out}", err=True)
    else:
        click.echo(body, nl=False)


@main.command()
@game_option()
@click.option("--side", default=store_mod.MODERATOR, show_default=True, help="Show only what this side (or the moderator) may see.")
@json_option
def log(game_id: str, side: str, as_json: bool) -> None:
    """Print the event log as a side may see it (everything for the moderator).

    \b
    Example:
        pbem log --game club-1 --side Pompey
    """
    side = _side_name(side, _game_sides(game_id, moderator=True))
    with _obj().open_home().open(game_id) as st:
        rows = st.events(side)
    if side.lower() != "moderator":
        # a side's log is numbered in its own view: gaps in the game's numbering would count
        # the events that were private to the other side (a default applied to him, his deal)
        rows = [(n, step, ev) for n, (_, step, ev) in enumerate(rows, start=1)]
    if as_json:
        _echo_json([{"seq": seq, "step": step, **ev.to_json()} for seq, step, ev in rows])
        return
    for seq, step, ev in rows:
        click.echo(f"#{seq} step {step} [{ev.audience}] {ev.kind}: {ev.text}")


@main.command()
@game_option()
@json_option
def state(game_id: str, as_json: bool) -> None:
    """Print the moderator's full position (--json: the position format).

    \b
    Example:
        pbem state --game club-1 --json > position.json
    """
    with _obj().open_home().open(game_id) as st:
        adj = st.adjudication()
        system = st.system
    if as_json:
        _echo_json(system.position(adj))
        return
    click.echo(f"{game_id}: {system.describe(adj)}")


@main.command()
@game_option(required=False)
@json_option
def verify(game_id: str | None, as_json: bool) -> None:
    """Replay every submission and check snapshots, events, the hash chain and reports.

    Without --game every game in the folder is checked. Exit code 1 on any difference.

    \b
    Example:
        pbem verify --game club-1
    """
    home = _obj().open_home()

    def check(st: Any) -> Any:
        try:
            st.recover()  # finish unfinished work first, like every command ...
        except PbemError:
            pass  # ... unless the file is damaged: then the audit says where
        return st.verify()

    results, failed = _each_game(home, game_id, check, recover=False)
    if as_json:
        _echo_json([{"game": r.game, "ok": r.ok, "steps": r.steps, "submissions": r.submissions,
                     "events": r.events, "reports": r.reports, "problems": r.problems} for r in results])
    else:
        for r in results:
            if r.ok:
                click.echo(f"{r.game}: OK: {r.steps} steps, {r.submissions} submissions, {r.events} events, "
                           f"{r.reports} reports checked")
            else:
                click.echo(f"{r.game}: FAILED")
                for p in r.problems:
                    click.echo(f"  {p}")
    if failed or any(not r.ok for r in results):
        sys.exit(1)


@main.command()
@click.option("--now", metavar="TIME", help="The time to judge deadlines by (ISO 8601; default: now).")
@json_option
def tick(now: str | None, as_json: bool) -> None:
    """Apply deadline defaults to overdue steps of every game and queue reminders.

    \b
    Example:
        pbem tick                      # from cron, every hour
        pbem tick --now 2025-03-04T18:30:00Z
    """
    when = store_mod.parse_time(now) if now is not None else datetime.now(timezone.utc).replace(microsecond=0)
    # one damaged game file must not keep the other games' deadlines from being applied
    ticked, failed = _each_game(_obj().open_home(), None, lambda st: (st.game_id, st.tick(when)))
    done = dict(ticked)
    if as_json:
        _echo_json(done)
    else:
        for gid, actions in done.items():
            for a in actions or ["nothing to do"]:
                click.echo(f"{gid}: {a}")
    if failed:
        sys.exit(1)


# ---- mail --------------------------------------------------------------------------------------


def _mailbox_options(f: F) -> F:
    """The mailbox of `pbem inbox` and `pbem run`: exactly one of --imap, --maildir, --mbox."""
    opts = [
        click.option("--mbox", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE", help="An mbox file."),
        click.option("--maildir", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
                     help="A Maildir folder (with cur and new)."),
        click.option("--imap", "imap_url", metavar="URL",
                     help="An IMAP folder: imaps://USER@HOST[:PORT]/FOLDER (TLS) or imap://... (plain; with "
                          "--imap-starttls, TLS). The password comes from PBEM_IMAP_PASSWORD or --imap-password-file."),
        click.option("--imap-password-file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
                     help="Read the IMAP password from the first line of FILE (instead of PBEM_IMAP_PASSWORD)."),
        click.option("--imap-starttls", is_flag=True, help="With imap://: switch to TLS (STARTTLS) before logging in."),
        click.option("--imap-cafile", type=click.Path(exists=True, dir_okay=False, path_type=Path), metavar="FILE",
                     help="Trust the server certificates signed by the authorities in FILE (PEM), say a club's "
                          "own server's certificate."),
        click.option("--retry", is_flag=True, help="Look again at messages that could not be delivered before "
                                                  "(say, after `pbem new` created their game)."),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


@dataclass
class MailboxChoice:
    mbox: Path | None
    maildir: Path | None
    imap_url: str | None
    imap_password_file: Path | None
    imap_starttls: bool
    imap_cafile: Path | None
    retry: bool

    @property
    def given(self) -> bool:
        return any(x is not None for x in (self.mbox, self.maildir, self.imap_url))

    def check(self, required: bool = True) -> None:
        given = [x for x in (self.mbox, self.maildir, self.imap_url) if x is not None]
        if len(given) > 1 or (required and not given):
            raise click.UsageError("give exactly one of --imap URL, --maildir DIR or --mbox FILE")
        if self.imap_url is None and (self.imap_password_file or self.imap_starttls or self.imap_cafile):
            raise click.UsageError("--imap-password-file, --imap-starttls and --imap-cafile go with --imap URL")
        if self.imap_url is not None:
            from pbem.imap import parse_imap_url

            parse_imap_url(self.imap_url)  # a wrong address is a usage error before anything is read

    def password(self) -> str:
        import os

        if self.imap_password_file is not None:
            try:
                lines = self.imap_password_file.read_text(encoding="utf-8").splitlines()
            except OSError as exc:
                raise click.ClickException(f"--imap-password-file {self.imap_password_file}: "
                                           f"{exc.strerror or exc}") from None
            if not lines or not lines[0]:
                raise click.ClickException(f"--imap-password-file {self.imap_password_file}: the first line is "
                                           "empty; write the password on it")
            return lines[0]
        password = os.environ.get("PBEM_IMAP_PASSWORD")
        if not password:
            raise click.UsageError("--imap needs the password: set the environment variable PBEM_IMAP_PASSWORD or "
                                   "give --imap-password-file FILE (never on the command line)")
        return password

    def read(self, home: Home, on_result: Callable[[Any], None] | None) -> Any:
        from pbem.mailbox import read_inbox

        if self.imap_url is not None:
            from pbem.imap import parse_imap_url, read_imap

            return read_imap(home, parse_imap_url(self.imap_url), self.password(), starttls=self.imap_starttls,
                             cafile=self.imap_cafile, retry=self.retry, on_result=on_result)
        return read_inbox(home, mbox=self.mbox, maildir=self.maildir, retry=self.retry, on_result=on_result)


@main.command()
@_mailbox_options
@json_option
def inbox(mbox: Path | None, maildir: Path | None, imap_url: str | None, imap_password_file: Path | None,
          imap_starttls: bool, imap_cafile: Path | None, retry: bool, as_json: bool) -> None:
    """Feed every new message of a mailbox to its game and print each verdict.

    Each message goes to the game its submission names (armored block in the body,
    or the signed JSON file attached). A message that names no game here or holds
    no submission is reported and left in the mailbox. Messages already handled are
    remembered in the home folder and never fed twice; in IMAP a delivered message
    gets the flags \\Seen and $PbemIngested (nothing is ever deleted). Exit code 0
    when the mailbox was read, even if submissions were rejected; 1 when it cannot be
    read, or when a message could not be stored (it is fed again next time).

    \b
    Example:
        pbem --home ~/club inbox --maildir ~/Maildir
        pbem --home ~/club inbox --mbox /var/mail/pbem --json
        PBEM_IMAP_PASSWORD=secret pbem inbox --imap imaps://club@mail.example.org/INBOX
    """
    box = MailboxChoice(mbox, maildir, imap_url, imap_password_file, imap_starttls, imap_cafile, retry)
    box.check()
    run = box.read(_obj().open_home(), None if as_json else lambda r: click.echo(r.line()))
    if as_json:
        _echo_json(run.to_json())
    else:
        click.echo(run.summary())
    if run.failed:
        sys.exit(1)


def _host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise click.UsageError(f"--smtp {text!r}: give HOST:PORT, like localhost:25 or mail.example.org:587")
    return host.strip("[]"), int(port)


@main.command()
@game_option(required=False)
@click.option("--smtp", "server", default="localhost:25", show_default=True, metavar="HOST:PORT", help="The mail server.")
@click.option("--from", "sender", envvar="PBEM_FROM", required=True, metavar="ADDRESS", help="The sender address (env PBEM_FROM); players reply to it.")
@click.option("--starttls", is_flag=True, help="Switch the connection to TLS (STARTTLS) before sending.")
@click.option("--user", metavar="NAME", help="Log in as NAME; the password comes from the environment variable PBEM_SMTP_PASSWORD.")
@click.option("--dry-run", "dry_run", type=click.Path(file_okay=False, path_type=Path), metavar="DIR", help="Write the messages as .eml files into DIR instead of sending them (nothing is marked sent).")
@json_option
def send(game_id: str | None, server: str, sender: str, starttls: bool, user: str | None, dry_run: Path | None,
         as_json: bool) -> None:
    """Email every report and reminder not sent yet, each only to its own recipient.

    One message per recipient and step: the text report, with the HTML report as
    its alternative. A report is marked sent once the server has accepted it, so a
    second run sends nothing again. Exit code 1 if the server refused a message
    (it stays in the outbox) or could not be used.

    \b
    Example:
        PBEM_SMTP_PASSWORD=secret pbem send --from moderator@example.org \\
            --smtp mail.example.org:587 --starttls --user moderator
        pbem send --game club-1 --from moderator@example.org --dry-run outgoing/
    """
    import os

    from pbem.mailbox import DryRunTransport, SmtpTransport, Transport, send_outbox, send_summary

    if "@" not in sender:
        raise click.UsageError(f"--from {sender!r} is not an email address")
    password = os.environ.get("PBEM_SMTP_PASSWORD")
    if user and password is None:
        raise click.UsageError("--user needs the password in the environment variable PBEM_SMTP_PASSWORD")
    transport: Transport
    if dry_run is not None:
        transport = DryRunTransport(dry_run)
    else:
        host, port = _host_port(server)
        transport = SmtpTransport(host, port, sender, starttls=starttls, user=user, password=password)
    show = None if as_json else (lambda r: click.echo(r.line()) if r.status in ("sent", "written", "refused") else None)
    try:
        results, failure = send_outbox(_obj().open_home(), transport, sender, game=game_id,
                                       mark=dry_run is None, on_result=show)
    finally:
        transport.close()
    if as_json:
        _echo_json({"results": [r.to_json() for r in results], "error": failure or None})
    elif results or not failure:
        for line in send_summary(results, dry_run=dry_run is not None):
            click.echo(line)
    if failure:
        raise click.ClickException(failure)
    if any(r.status == "refused" for r in results):
        sys.exit(1)


# ---- the club loop -----------------------------------------------------------------------------


@main.command("run")
@_mailbox_options
@click.option("--smtp", "server", default="localhost:25", show_default=True, metavar="HOST:PORT", help="The mail server for sending.")
@click.option("--from", "sender", envvar="PBEM_FROM", required=True, metavar="ADDRESS", help="The sender address (env PBEM_FROM).")
@click.option("--starttls", is_flag=True, help="SMTP: switch to TLS (STARTTLS) before sending.")
@click.option("--user", metavar="NAME", help="SMTP: log in as NAME; the password comes from PBEM_SMTP_PASSWORD.")
@click.option("--dry-run", "dry_run", type=click.Path(file_okay=False, path_type=Path), metavar="DIR", help="Write the messages as .eml files into DIR instead of sending them (nothing is marked sent).")
@click.option("--every", metavar="DURATION", help="Run in the foreground, once every DURATION (like 5m or 1h), until stopped.")
@click.option("--count", type=click.IntRange(1), help="With --every: stop after this many runs.")
@click.option("--now", metavar="TIME", help="Judge deadlines at this time (ISO 8601; default: the clock).")
@json_option
def run(mbox: Path | None, maildir: Path | None, imap_url: str | None, imap_password_file: Path | None,
        imap_starttls: bool, imap_cafile: Path | None, retry: bool, server: str, sender: str, starttls: bool,
        user: str | None, dry_run: Path | None, every: str | None, count: int | None, now: str | None,
        as_json: bool) -> None:
    """Run the club once: fetch mail, ingest, deadlines, tournaments, send.

    In that order, under a lock (a second `pbem run` on the same home says so and
    does nothing). One summary line per run. The mailbox is optional (any one of
    `pbem inbox`'s); the SMTP options are `pbem send`'s. Exit code 0 unless something
    needs the moderator (a message that could not be stored, a mailbox or server that
    cannot be used, a damaged game file, a tournament that cannot advance, a refused
    message): then 1, after doing everything else.

    \b
    Example:
        */5 * * * *  pbem --home ~/club run --imap imaps://club@mail.example.org/INBOX --from club@example.org
        pbem run --maildir ~/Maildir --from club@example.org --every 5m
    """
    import os

    from pbem.club import RunBusy, run_once
    from pbem.mailbox import DryRunTransport, SmtpTransport, Transport

    box = MailboxChoice(mbox, maildir, imap_url, imap_password_file, imap_starttls, imap_cafile, retry)
    box.check(required=False)
    if box.imap_url is not None:
        box.password()  # a missing password is a usage error now, not a failure in every run
    if "@" not in sender:
        raise click.UsageError(f"--from {sender!r} is not an email address")
    password = os.environ.get("PBEM_SMTP_PASSWORD")
    if user and password is None:
        raise click.UsageError("--user needs the password in the environment variable PBEM_SMTP_PASSWORD")
    if count is not None and every is None:
        raise click.UsageError("--count goes with --every")
    period = store_mod.parse_duration(every).total_seconds() if every else None
    when = store_mod.parse_time(now) if now is not None else None
    home = _obj().open_home()
    if not home.path.is_dir():
        raise click.ClickException(f"no game folder {home.path}; create a game or a tournament first, or pass "
                                   "the right --home")

    def transport() -> Transport:
        if dry_run is not None:
            return DryRunTransport(dry_run)
        host, port = _host_port(server)
        return SmtpTransport(host, port, sender, starttls=starttls, user=user, password=password)

    echo: Callable[[str], None] = (lambda line: None) if as_json else click.echo
    fetch = (lambda h: box.read(h, None if as_json else lambda r: click.echo(r.line()))) if box.given else None
    done = 0
    needs = False
    while True:
        started = time.monotonic()
        try:
            result = run_once(home, fetch=fetch, transport=transport(), sender=sender, now=when,
                              mark_sent=dry_run is None, echo=echo)
        except RunBusy as exc:
            click.echo(str(exc))
        else:
            if as_json:
                _echo_json(result.to_json())
            else:
                for problem in result.attention:
                    click.echo(f"needs the moderator: {problem}", err=True)
                click.echo(result.summary())
            needs = needs or result.needs_moderator
        done += 1
        if period is None or (count is not None and done >= count):
            break
        try:
            time.sleep(max(0.0, period - (time.monotonic() - started)))
        except KeyboardInterrupt:
            break
    if needs:
        sys.exit(1)


# ---- tournaments ------------------------------------------------------------------------------


@main.group(cls=PbemGroup)
def tournament() -> None:
    """Run a club tournament: players, Swiss, round-robin or knockout pairings, games and standings.

    A tournament is a file in the home folder (tournaments/NAME.db); its games are
    ordinary games of the home, named NAME-r<round>-<table>.

    \b
    Example:
        pbem tournament new spring --rounds 3 --deadline 72h
        pbem tournament add spring --player Ann --email ann@example.org --key ann.pub
        pbem tournament pair spring
        pbem tournament standings spring
    """


@tournament.command("new")
@click.argument("name")
@click.option("--rounds", type=int, help="How many rounds (Swiss: required; round-robin and knockout: as many as it takes).")
@click.option("--format", "fmt", type=click.Choice(["swiss", "round-robin", "knockout"]), default="swiss",
              show_default=True, help="Swiss: pairs by score, no rematches; round-robin: everyone meets everyone once; "
                                      "knockout: single elimination, seeded in the order the players joined.")
@click.option("--system", default="caesar", show_default=True, help="The game system of every game.")
@click.option("-o", "--option", "options", multiple=True, metavar="NAME=VALUE", help="A game option for every game.")
@click.option("--deadline", metavar="DURATION", help="Time for each step of every game, like 72h or 3d.")
@click.option("--moderator-email", default="", help="Where the moderator's copies of the reports go.")
@click.option("--seed", type=click.IntRange(0, 2**62 - 1), help="The seed the games' seeds come from (default: random).")
def tournament_new(name: str, rounds: int | None, fmt: str, system: str, options: tuple[str, ...],
                   deadline: str | None, moderator_email: str, seed: int | None) -> None:
    """Create a tournament.

    \b
    Example:
        pbem tournament new spring --rounds 3 --deadline 72h
        pbem tournament new league --format round-robin --system caesar -o tournament=yes
        pbem tournament new cup --format knockout --deadline 3d
    """
    from pbem.tournament import Tournament

    values = {k.replace("-", "_"): v for k, v in _pairs(options, "--option").items()}
    home = _obj().open_home()
    with Tournament.create(home, name, fmt=fmt, rounds=rounds, system=system, options=values,
                           deadline=store_mod.parse_duration(deadline) if deadline else None,
                           seed=secrets.randbelow(2**31) if seed is None else seed,
                           moderator_email=moderator_email) as t:
        click.echo(f"created tournament {name} in {t.path}")
        click.echo(t.summary_line())
        if not deadline:
            click.echo("warning: no --deadline: its games never time out, and a player who stops answering "
                       "stops the round", err=True)


@tournament.command("add")
@click.argument("name")
@click.option("--player", "player", required=True, metavar="NAME", help="The player's name.")
@click.option("--email", required=True, help="The player's email address: pairings, reports and standings go there.")
@click.option("--key", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="The player's public key (FILE.pub from `pbem keygen`).")
@click.option("--password", help="Password mode instead of a key (stored only as a scrypt hash).")
def tournament_add(name: str, player: str, email: str, key: Path | None, password: str | None) -> None:
    """Register a player (before round 1 is paired).

    \b
    Example:
        pbem tournament add spring --player Ann --email ann@example.org --key ann.pub
        pbem tournament add spring --player Bob --email bob@example.org --password 'open sesame'
    """
    from pbem.tournament import Tournament

    setup = _player(player, email, key, password, f"--key {key}" if key else "")
    with Tournament(_obj().open_home(), name) as t:
        t.add_player(player, email, public_key=setup.public_key, password_hash=setup.password_hash)
        click.echo(f"{player} joined {name} ({len(t.entrants())} players)")


@tournament.command("pair")
@click.argument("name")
def tournament_pair(name: str) -> None:
    """Pair the next round and create its games.

    Swiss: by score, no rematch while one can be avoided, sides balanced over the rounds,
    a bye (a win) for an odd count. Each player is mailed his game, side and opponent;
    the games' first reports go out through their outboxes (`pbem send`).

    \b
    Example:
        pbem tournament pair spring
    """
    from pbem.tournament import Tournament

    with Tournament(_obj().open_home(), name) as t:
        for line in t.pair():
            click.echo(line)


@tournament.command("standings")
@click.argument("name")
@click.option("--format", "fmt", type=click.Choice(["text", "html", "json"]), default="text", show_default=True)
def tournament_standings(name: str, fmt: str) -> None:
    """Show the standings (recording the result of every game that has ended).

    Points: win 1, draw 1/2, bye 1; tie-breaks in order: Buchholz (the opponents'
    points), then the victory-point margin from each game's score.

    \b
    Example:
        pbem tournament standings spring
        pbem tournament standings spring --format html > standings.html
    """
    from pbem.tournament import Tournament

    with Tournament(_obj().open_home(), name) as t:
        if fmt == "json":
            _echo_json(t.standings_json())
        elif fmt == "html":
            click.echo(t.standings_html(), nl=False)
        else:
            click.echo(t.standings_text(), nl=False)


# ---- simulation and the sample game ----------------------------------------------------------


@main.command()
@click.option("--system", default="caesar", show_default=True, help="The game system.")
@click.option("--games", "n", type=click.IntRange(1), default=20, show_default=True, help="How many random games.")
@click.option("--seed", type=int, default=1, show_default=True, help="The first game's seed (then seed+1, ...).")
@click.option("-o", "--option", "options", multiple=True, metavar="NAME=VALUE", help="A game option, like -o tournament=yes.")
@click.option("--tournament", is_flag=True, hidden=True)
@click.option("--free-deployment", is_flag=True, hidden=True)
@json_option
def simulate(system: str, n: int, seed: int, options: tuple[str, ...], tournament: bool, free_deployment: bool,
             as_json: bool) -> None:
    """Play random legal games and print the speed and who won.

    \b
    Example:
        pbem simulate --games 100 --seed 7
    """
    from pbem.core.game import option_values
    from pbem.games import find_game

    game_system = find_game(system)
    given: dict[str, str | bool] = {k.replace("-", "_"): v for k, v in _pairs(options, "--option").items()}
    if tournament:
        given["tournament"] = True
    if free_deployment:
        given["free_deployment"] = True
    try:
        values = option_values(game_system.options, given)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    rep = game_system.simulate(n, seed, values, clock=time.perf_counter)
    if as_json:
        _echo_json(rep)
        return
    click.echo(f"{rep['games']} games, {rep['decisions']} decisions in {rep['seconds']:.2f} s: "
               f"{rep['games_per_second']:.1f} games/s, {rep['decisions_per_second']:.0f} decisions/s")
    click.echo(", ".join(f"{k} {v}" for k, v in rep["tally"].items()))


def examples_dir() -> Any:
    """The sample game: ``pbem/examples`` in an installed package, else ``examples/`` of a checkout."""
    from importlib import resources

    try:
        ref = resources.files("pbem") / "examples"
        if ref.is_dir() and (ref / "game.json").is_file():
            return ref
    except (ModuleNotFoundError, OSError):  # pragma: no cover - odd installs
        pass
    repo = Path(__file__).resolve().parent.parent / "examples"
    if (repo / "game.json").is_file():
        return repo
    raise StoreError("the sample game is not installed (no pbem/examples and no examples/ folder); "
                     "reinstall pbem or run from a checkout")


def run_demo(home: Path, *, examples: Any = None, echo: Callable[[str], None] = click.echo) -> dict[str, Any]:
    """Create the sample game in ``home``, feed every sample submission, export the reports.

    Returns what happened: the game, each file's verdict, and where the reports went.
    Raises :class:`StoreError` if a verdict is not the one the sample expects.
    """
    ex = examples if examples is not None else examples_dir()
    conf = json.loads((ex / "game.json").read_text(encoding="utf-8"))
    gid = conf["game"]
    h = Home(home)
    if gid in h.games():
        raise StoreError(f"the demo game {gid!r} already exists in {home}; use a fresh folder (--home)")
    players = tuple(
        PlayerSetup(side, conf["emails"][side],
                    public_key=(ex / conf["keys"][side]).read_text(encoding="utf-8").strip())
        for side in sorted(conf["emails"])
    )
    setup = GameSetup(game_id=gid, players=players, seed=int(conf["seed"]), system=conf.get("system", "caesar"),
                      options={**conf["options"], "battles": conf["battles"]})
    h.create(setup).close()
    echo(f"created game {gid} in {home} (seed {conf['seed']}; sample keys for both sides)")
    manifest = json.loads((ex / "submissions" / "manifest.json").read_text(encoding="utf-8"))
    fed = []
    with h.open(gid) as st:
        for item in manifest:
            raw = (ex / "submissions" / item["file"]).read_bytes()
            r = st.receive(raw, source=item["file"])
            lines = describe_receipt(r)
            echo(f"  {item['file']}: {lines[0]}")
            for more in lines[1:] if (r.resolved or r.verdict is Verdict.REJECTED) else ():
                echo(f"      {more.strip()}")
            fed.append({"file": item["file"], "verdict": r.verdict.value, "submission": r.submission})
            if r.verdict.value != item["expect"]:
                raise StoreError(f"sample {item['file']}: expected {item['expect']}, got {r.verdict.value}: "
                                 f"{r.reason} {list(r.errors)}; regenerate with examples/make_sample.py")
        out = home / f"{gid}-reports"
        rows = st.outbox()
        for row in rows:
            folder = out / f"step-{row.step:02d}"
            folder.mkdir(parents=True, exist_ok=True)
            ext = "txt" if row.format == "text" else "html"
            (folder / f"{row.recipient}.{ext}").write_text(row.body or "", encoding="utf-8")
        status = st.status()
    echo(f"now at step {status.step}: {status.title}")
    echo(f"{len(rows)} reports written to {out}")
    echo(f"try: pbem --home {home} report --game {gid} --side Caesar")
    return {"game": gid, "home": str(home), "fed": fed, "reports": str(out), "report_files": len(rows),
            "step": status.step}


@main.command()
@click.option("--home", "demo_home", type=click.Path(file_okay=False, path_type=Path), help="A fresh folder for the demo game (default: the global --home).")
@json_option
def demo(demo_home: Path | None, as_json: bool) -> None:
    """Play the sample game: create it, feed every sample submission, write the reports.

    \b
    Example:
        pbem demo --home /tmp/pbem-demo
        pbem --home /tmp/pbem-demo report --game caesar-demo --side Caesar
    """
    home = demo_home or _obj().home
    if as_json:
        _echo_json(run_demo(home, echo=lambda _line: None))
    else:
        run_demo(home)


if __name__ == "__main__":  # python -m pbem.cli
    main()
