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
from typing import Any, Callable, TypeVar

import click
from sqlalchemy.exc import DBAPIError

from pbem import store as store_mod
from pbem.caesar.board import Side
from pbem.caesar.state import Options
from pbem.caesar.steps import BattleMode, Settings
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
DEFAULT_HOME = "./pbem-home"
_MAIL_LINE = 76  # order lines longer than this may be wrapped by email programs
DEMO_GAME = "caesar-demo"
SIDES = [s.value for s in Side]
VIEWERS = SIDES + [store_mod.MODERATOR]


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


def _player(side: Side, email: str, key: Path | None, password: str | None) -> PlayerSetup:
    if (key is None) == (password is None):
        raise click.UsageError(
            f"give {side.value} exactly one of --{side.value.lower()}-key FILE.pub or --{side.value.lower()}-password"
        )
    if key is not None:
        option = f"--{side.value.lower()}-key {key}"
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


@main.command()
@click.argument("game_id", metavar="GAME")
@click.option("--caesar-email", default="", help="Caesar's email address.")
@click.option("--pompey-email", default="", help="Pompey's email address.")
@click.option("--caesar-key", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Caesar's public key (FILE.pub from `pbem keygen`).")
@click.option("--pompey-key", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Pompey's public key.")
@click.option("--caesar-password", help="Password mode for Caesar (stored only as a scrypt hash).")
@click.option("--pompey-password", help="Password mode for Pompey (stored only as a scrypt hash).")
@click.option("--moderator-email", default="", help="Where the moderator's reports go.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="The game's random seed (default: a random one, printed).")
@click.option("--scenario", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Start from a custom position (a position document or a compact spec, JSON).")
@click.option("--tournament", is_flag=True, help="Tournament rule C5: Caesar is Player 1 on the first game turn.")
@click.option("--free-deployment", is_flag=True, help="Free deployment (5.3) as the first step.")
@click.option("--battles", type=click.Choice([m.value for m in BattleMode]), default=BattleMode.PLANNED.value, show_default=True, help="planned: battles follow the plans and published defaults; interactive: ask at every decision a plan does not cover.")
@click.option("--deadline", metavar="DURATION", help="Time for each step, like 72h, 3d or 1d12h; `pbem tick` applies defaults after it.")
@click.option("--computer", type=click.Choice(SIDES, case_sensitive=False), help="A computer player for this side: the moderator's loop (new, submit, inbox, tick) answers its steps with signed submissions (a key made in the home folder).")
@click.option("--strength", type=click.FloatRange(0.01), default=1.0, show_default=True, help="With --computer: its thinking time per step, in units of 2 seconds.")
@click.option("--computer-iterations", type=click.IntRange(1), help="With --computer: a fixed number of search iterations per step instead of the clock (reproducible).")
@json_option
def new(
    game_id: str, caesar_email: str, pompey_email: str, caesar_key: Path | None, pompey_key: Path | None,
    caesar_password: str | None, pompey_password: str | None, moderator_email: str, seed: int | None,
    scenario: Path | None, tournament: bool, free_deployment: bool, battles: str, deadline: str | None,
    computer: str | None, strength: float, computer_iterations: int | None, as_json: bool,
) -> None:
    """Create a game and register both players.

    \b
    Example:
        pbem new club-1 --caesar-email ann@example.org --caesar-key ann.pub \\
            --pompey-email bob@example.org --pompey-password 'open sesame' --deadline 72h
    """
    if computer is not None:
        caesar_key, pompey_key = _computer_key(game_id, Side(computer.capitalize()), caesar_key, pompey_key,
                                               caesar_password, pompey_password)
    players = (
        _player(Side.CAESAR, caesar_email, caesar_key, caesar_password),
        _player(Side.POMPEY, pompey_email, pompey_key, pompey_password),
    )
    if caesar_password is not None and caesar_password == pompey_password:
        raise click.ClickException("Caesar and Pompey were given the same password; each player needs his own, "
                                   "or either could send orders for the other")
    game = None
    if scenario is not None:
        if tournament or free_deployment or seed is not None:
            raise click.UsageError("with --scenario the seed and options come from the scenario file; "
                                   "drop --seed, --tournament and --free-deployment")
        from pbem.caesar.scenario import scenario_from_text

        try:
            text = Path(scenario).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise click.ClickException(f"cannot read the scenario file {scenario}: {exc}") from None
        game = scenario_from_text(text, str(scenario))
    if seed is None:
        seed = secrets.randbelow(2**31)
    setup = GameSetup(
        game_id=game_id,
        players=players,
        seed=seed,
        options=Options(free_deployment=free_deployment, tournament=tournament),
        settings=Settings(BattleMode(battles)),
        scenario=game,
        deadline=store_mod.parse_duration(deadline) if deadline else None,
        moderator_email=moderator_email,
    )
    try:
        with _obj().open_home().create(setup) as st:
            status = st.status()
            record = st.game()
            reports = len(st.outbox())
    except BaseException:
        if computer is not None:  # no game: no key for it either (a retry would find the old one)
            from pbem.computer import remove_computer_key

            remove_computer_key(_obj().open_home().path, game_id, Side(computer.capitalize()))
        raise
    if computer is not None:
        from pbem.computer import new_computer, save_computer

        save_computer(_obj().open_home().path, game_id, new_computer(Side(computer.capitalize()), strength, computer_iterations))
        _computer_turns(game_id)
        with _obj().open_home().open(game_id) as st:
            status = st.status()
            reports = len(st.outbox())
    if as_json:
        _echo_json({"game": game_id, "file": str(st.path), "seed": record.seed, "status": status.to_json(),
                    "reports": reports})
        return
    dl = store_mod.format_duration(record.deadline_seconds) if record.deadline_seconds else "none"
    click.echo(f"created game {game_id} in {st.path}")
    click.echo(f"seed {record.seed}, battles {battles}, deadline per step {dl}")
    click.echo(f"step {status.step}: {status.title} (waits for {', '.join(status.awaiting)})")
    click.echo(f"{reports} reports queued (see `pbem report --game {game_id} --side Caesar`)")


def _computer_key(game_id: str, side: Side, caesar_key: Path | None, pompey_key: Path | None,
                  caesar_password: str | None, pompey_password: str | None) -> tuple[Path | None, Path | None]:
    """``pbem new --computer SIDE``: make the bot's key pair in the home folder and register it for SIDE."""
    from pbem.computer import make_computer_key

    given = (caesar_key, caesar_password) if side is Side.CAESAR else (pompey_key, pompey_password)
    if any(x is not None for x in given):
        raise click.UsageError(f"--computer {side.value}: the computer signs {side.value}'s orders with its own key; "
                               f"drop --{side.value.lower()}-key and --{side.value.lower()}-password")
    public = make_computer_key(_obj().open_home().path, game_id, side)
    return (public, pompey_key) if side is Side.CAESAR else (caesar_key, public)


def _computer_turns(game_id: str | None = None) -> None:
    """Let computer players answer the steps that wait for them (after a step may have opened)."""
    from pbem.computer import play_computer_turns

    for gid, receipt in play_computer_turns(_obj().open_home(), game_id):
        for line in describe_receipt(receipt):
            click.echo(f"{gid}: computer: {line}", err=True)


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
        return {"game": st.game_id, "file": str(st.path), "step": s.step, "year": s.year, "turn": s.turn,
                "over": s.over}

    rows, failed = _each_game(home, None, row)
    if as_json:
        _echo_json(rows)
    else:
        if not rows and not failed:
            click.echo(f"no games in {home.path} (create one with `pbem new`)")
        for r in rows:
            where = "over" if r["over"] else f"step {r['step']}, {r['year']} turn {r['turn']}"
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
@click.option("--side", type=click.Choice(SIDES, case_sensitive=False), required=True, help="Your side.")
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
    if receipt.verdict is Verdict.ACCEPTED:
        _computer_turns(receipt.game)
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
@click.option("--side", type=click.Choice(VIEWERS, case_sensitive=False), required=True, help="Whose report.")
@click.option("--format", "fmt", type=click.Choice(store_mod.FORMATS), default="text", show_default=True)
@click.option("--step", type=int, help="The report sent when this step opened (default: the latest).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write to this file.")
def report(game_id: str, side: str, fmt: str, step: int | None, out: Path | None) -> None:
    """Print the latest report for a side (or the moderator).

    \b
    Example:
        pbem report --game club-1 --side Caesar --format html --out caesar.html
    """
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
@click.option("--side", type=click.Choice(VIEWERS, case_sensitive=False), default=store_mod.MODERATOR, show_default=True, help="Show only what this side may see.")
@json_option
def log(game_id: str, side: str, as_json: bool) -> None:
    """Print the event log as a side may see it (everything for the moderator).

    \b
    Example:
        pbem log --game club-1 --side Pompey
    """
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
        click.echo(f"#{seq} step {step} [{ev.audience.value}] {ev.kind}: {ev.text}")


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
        session = st.session()
    g = session.game
    if as_json:
        _echo_json(g.to_json())
        return
    s = g.state
    click.echo(f"{st.game_id}: year {s.year}, turn {s.turn}, phase {s.phase.value}, step {session.step_no}")
    click.echo(f"VP: Caesar {g.vp(Side.CAESAR)}, Pompey {g.vp(Side.POMPEY)}")
    for side in Side:
        click.echo(f"{side.value} holds: {', '.join(s.hands[side]) or 'no cards'}")
    at: dict[str, list[str]] = {}
    for bid in sorted(g.on_map(Side.CAESAR) + g.on_map(Side.POMPEY)):
        b = s.blocks[bid]
        at.setdefault(b.loc or "", []).append(f"{b.side.value[0]}:{g.describe(bid)}")
    for loc in sorted(at):
        click.echo(f"  {loc}: {', '.join(at[loc])}")


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
    _computer_turns()
    if as_json:
        _echo_json(done)
    else:
        for gid, actions in done.items():
            for a in actions or ["nothing to do"]:
                click.echo(f"{gid}: {a}")
    if failed:
        sys.exit(1)


# ---- mail --------------------------------------------------------------------------------------


@main.command()
@click.option("--mbox", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE", help="An mbox file.")
@click.option("--maildir", type=click.Path(file_okay=False, path_type=Path), metavar="DIR", help="A Maildir folder (with cur and new).")
@click.option("--retry", is_flag=True, help="Look again at messages that could not be delivered before (say, after `pbem new` created their game).")
@json_option
def inbox(mbox: Path | None, maildir: Path | None, retry: bool, as_json: bool) -> None:
    """Feed every new message of a mailbox to its game and print each verdict.

    Each message goes to the game its submission names (armored block in the body,
    or the signed JSON file attached). A message that names no game here or holds
    no submission is reported and left in the mailbox. Messages already handled are
    remembered in the home folder and never fed twice. Exit code 0 when the mailbox
    was read, even if submissions were rejected; 1 when it cannot be read, or when
    a message could not be stored (it is fed again next time).

    \b
    Example:
        pbem --home ~/club inbox --maildir ~/Maildir
        pbem --home ~/club inbox --mbox /var/mail/pbem --json
    """
    from pbem.mailbox import read_inbox

    if (mbox is None) == (maildir is None):
        raise click.UsageError("give exactly one of --mbox FILE or --maildir DIR")
    run = read_inbox(_obj().open_home(), mbox=mbox, maildir=maildir, retry=retry,
                     on_result=None if as_json else lambda r: click.echo(r.line()))
    _computer_turns()
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


# ---- the computer opponent ----------------------------------------------------------------------


@main.command()
@game_option()
@click.option("--side", type=click.Choice(SIDES, case_sensitive=False), required=True, help="The side the bot plays.")
@click.option("--explain", is_flag=True, help="Also say why: the alternatives weighed and their estimated scores.")
@click.option("--strength", type=click.FloatRange(0.01), default=1.0, show_default=True, help="Thinking time per step, in units of 2 seconds.")
@click.option("--iterations", type=click.IntRange(1), help="Search this many iterations instead of a time budget (reproducible with --seed).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="The bot's own random seed (default: the step number).")
def bot(game_id: str, side: str, explain: bool, strength: float, iterations: int | None, seed: int | None) -> None:
    """Print the submission the computer player would send for the open step.

    It sees only what the side sees: that side's events and its view of the position.

    \b
    Example:
        pbem bot --game club-1 --side Pompey --explain --iterations 60
    """
    from pbem.caesar.ai.players import make_player

    who = Side(side.capitalize())
    with _obj().open_home().open(game_id) as st:
        session = st.session()
        log = [ev for _, _, ev in st.events(who.value)]
    step = session.step()
    if not step.awaits(who):
        waiting = ", ".join(s.value for s in step.awaiting) or "nobody"
        raise click.ClickException(f"step {step.number} ({step.title}) waits for {waiting}, not {who.value}")
    player = make_player("bot", strength, time.perf_counter, iterations)
    answer, _ = _bot_answer(session, log, who, player, step.number if seed is None else seed)
    click.echo(answer.text, nl=False)
    if explain:
        click.echo(f"# {answer.iterations} search iterations over positions consistent with what {who.value} has seen;")
        margin = 100 * float(getattr(player, "margin", 0.0))
        click.echo(f"# the one-ply choice is played unless another beats its estimate by {margin:g} points")
        for what, alternatives in answer.considered:
            click.echo(f"# {what}:")
            for w in alternatives[:6]:
                mark = "  one-ply choice" if w.one_ply else ""
                click.echo(f"#   {w.order:<40} est. {100 * w.value:5.1f}%  ({w.visits} samples){mark}")


def _bot_answer(session: Any, log: list[Any], side: Side, player: Any, seed: int) -> tuple[Any, Any]:
    """The computer player's answer for ``side`` at the open step, from that side's observation only."""
    from pbem.caesar.ai.match import observe_session
    from pbem.caesar.rng import Rng

    obs = observe_session(session, log, side)
    return player.answer(obs, Rng(seed)), obs


# ---- simulation and the sample game ----------------------------------------------------------


@main.command()
@click.option("--games", "n", type=click.IntRange(1), default=20, show_default=True, help="How many random games.")
@click.option("--seed", type=int, default=1, show_default=True, help="The first game's seed (then seed+1, ...).")
@click.option("--tournament", is_flag=True, help="Tournament rule C5.")
@click.option("--free-deployment", is_flag=True, help="Free deployment (5.3).")
@click.option("--caesar", "caesar_player", type=click.Choice(["bot", "greedy", "random"]), help="A computer player for Caesar: the games go through the step layer as order text, and the win rates are printed with 95% confidence intervals.")
@click.option("--pompey", "pompey_player", type=click.Choice(["bot", "greedy", "random"]), help="A computer player for Pompey (default random when --caesar is given).")
@click.option("--strength", type=click.FloatRange(0.01), default=1.0, show_default=True, help="The bot's thinking time per step, in units of 2 seconds.")
@click.option("--iterations", type=click.IntRange(1), help="Fix the bot's search to this many iterations per step instead of a time budget (reproducible).")
@json_option
def simulate(n: int, seed: int, tournament: bool, free_deployment: bool, caesar_player: str | None,
             pompey_player: str | None, strength: float, iterations: int | None, as_json: bool) -> None:
    """Play random legal games and print the speed and who won.

    With --caesar or --pompey, computer players (bot, greedy, random) play each other.

    \b
    Example:
        pbem simulate --games 100 --seed 7
        pbem simulate --caesar greedy --pompey random --games 4
    """
    from pbem.caesar.playout import PlayoutError, play_random_game
    from pbem.caesar.playout import simulate as run

    options = Options(free_deployment=free_deployment, tournament=tournament)
    if caesar_player or pompey_player:
        _simulate_players(n, seed, options, caesar_player or "random", pompey_player or "random", strength, iterations, as_json)
        return
    try:
        rep = run(n, seed, options, clock=time.perf_counter)
    except PlayoutError as exc:
        trail = exc.trail
        if not trail:  # played without a trail for speed: replay that game to get one
            try:
                play_random_game(exc.seed, options, keep_trail=True)
            except PlayoutError as again:
                trail = again.trail
        lines = [f"game with seed {exc.seed} failed: {type(exc.cause).__name__}: {exc.cause}",
                 f"decision trail ({len(trail)} decisions, oldest first):"]
        lines += [f"  {i}. {side}: {choice}" for i, (side, choice) in enumerate(trail, start=1)]
        lines.append(f"reproduce with: pbem simulate --games 1 --seed {exc.seed}")
        raise click.ClickException("\n".join(lines)) from exc
    if as_json:
        _echo_json({"games": rep.games, "seconds": rep.seconds, "decisions": rep.decisions,
                    "games_per_second": rep.games_per_second, "decisions_per_second": rep.decisions_per_second,
                    "tally": rep.tally})
        return
    click.echo(f"{rep.games} games, {rep.decisions} decisions in {rep.seconds:.2f} s: "
               f"{rep.games_per_second:.1f} games/s, {rep.decisions_per_second:.0f} decisions/s")
    click.echo(", ".join(f"{k} {v}" for k, v in rep.tally.items()))


def _simulate_players(n: int, seed: int, options: Options, caesar: str, pompey: str, strength: float,
                      iterations: int | None, as_json: bool) -> None:
    """``pbem simulate --caesar X --pompey Y``: whole games between computer players."""
    from pbem.caesar.ai.match import Tally, play_match
    from pbem.caesar.ai.players import make_player

    names = {Side.CAESAR: caesar, Side.POMPEY: pompey}
    tally = Tally()
    start = time.perf_counter()
    for i in range(n):
        players = {s: make_player(names[s], strength, time.perf_counter, iterations) for s in Side}
        tally.add(play_match(players, seed + i, options))
    seconds = time.perf_counter() - start
    if as_json:
        _echo_json({"games": tally.games, "seconds": seconds, "players": {s.value: names[s] for s in Side},
                    "tally": tally.wins})
        return
    click.echo(f"{tally.games} games in {seconds:.1f} s")
    for line in tally.lines(names):
        click.echo(line)


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
        PlayerSetup(Side(side), conf["emails"][side],
                    public_key=(ex / conf["keys"][side]).read_text(encoding="utf-8").strip())
        for side in SIDES
    )
    setup = GameSetup(game_id=gid, players=players, seed=int(conf["seed"]),
                      options=Options.from_json(conf["options"]), settings=Settings(BattleMode(conf["battles"])))
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
