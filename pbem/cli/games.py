"""Commands that make and follow games: ``pbem new``, ``games``, ``status``, ``tick``."""
from __future__ import annotations

import contextlib
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pbem.cli.base import (
    F,
    _computer_turns,
    _each_game,
    _echo_json,
    _obj,
    _pairs,
    _side_name,
    game_option,
    json_option,
    main,
)
from pbem.errors import PbemError

if TYPE_CHECKING:
    from pbem.store import PlayerSetup

_OLD_SIDE_OPTIONS = ("caesar", "pompey")  # the spellings of release 0.1: --caesar-email, --pompey-key, ...


def _player(side: str, email: str, key: Path | None, password: str | None, option: str = "") -> PlayerSetup:
    from pbem.envelope import hash_password, key_fingerprint
    from pbem.store import PlayerSetup

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
@click.option("--language", "languages", multiple=True, metavar="SIDE=LANG", help="A side's language for his reports and replies: en (default), es or sv; he may change it with the order line `language LANG`.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="A practice game: its dice and deals follow this seed and can be foreseen, and every report says so (default: a new 256-bit secret keys them).")
@click.option("--scenario", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Start from a custom position (a position document or a compact spec, JSON).")
@click.option("--tournament", is_flag=True, hidden=True)
@click.option("--free-deployment", is_flag=True, hidden=True)
@click.option("--battles", hidden=True)
@click.option("--deadline", metavar="DURATION", help="Time for each step, like 72h, 3d or 1d12h, or none; `pbem tick` applies defaults after it (default: the home's, `pbem config`).")
@click.option("--computer", metavar="SIDE", help="A computer player for this side: the moderator's loop (new, submit, inbox, tick) answers its steps with signed submissions (a key made in the home folder).")
@click.option("--strength", type=click.FloatRange(0.01), default=1.0, show_default=True, help="With --computer: its thinking time per step, in units of 2 seconds.")
@click.option("--computer-iterations", type=click.IntRange(1), help="With --computer: a fixed number of search iterations per step instead of the clock (reproducible).")
@_old_side_options
@json_option
def new(
    game_id: str, system: str, emails: tuple[str, ...], keys: tuple[str, ...], passwords: tuple[str, ...],
    options: tuple[str, ...], moderator_email: str, languages: tuple[str, ...], seed: int | None, scenario: Path | None, tournament: bool,
    free_deployment: bool, battles: str | None, deadline: str | None, computer: str | None, strength: float,
    computer_iterations: int | None, as_json: bool, **old: Any,
) -> None:
    """Create a game and register a player for each side.

    \b
    Example:
        pbem new club-1 --player Caesar=ann@example.org --key Caesar=ann.pub \\
            --player Pompey=bob@example.org --password 'Pompey=open sesame' --deadline 72h
    """
    from pbem import store as store_mod
    from pbem.games import find_game
    from pbem.settings import deadline_for
    from pbem.store import GameSetup

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
    if computer is not None:  # the computer signs its side's orders with a key made in the home folder
        from pbem.computer import make_computer_key

        computer = _side_name(computer, sides)
        if by_side[computer]["key"] is not None or by_side[computer]["password"] is not None:
            raise click.UsageError(f"--computer {computer}: the computer signs {computer}'s orders with its own key; "
                                   f"drop --key {computer}=... and --password {computer}=...")
        by_side[computer]["key"] = make_computer_key(_obj().open_home().path, game_id, computer)
    from dataclasses import replace

    from pbem.locale import language_code

    spoken: dict[str, str] = {}
    for side, value in _pairs(languages, "--language").items():
        try:
            spoken[_side_name(side, sides)] = language_code(value)
        except ValueError as exc:
            raise click.UsageError(f"--language {side}={value}: {exc}") from None
    players = tuple(replace(_player(side, c["email"], c["key"], c["password"], key_option.get(side, "")),
                            language=spoken.get(side, "en"))
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
    setup = GameSetup(
        game_id=game_id,
        players=players,
        seed=seed,
        system=game_system.name,
        options=values,
        scenario=position,
        deadline=deadline_for(_obj().open_home().path, deadline),
        moderator_email=moderator_email,
    )
    try:
        with _obj().open_home().create(setup) as st:
            status = st.status()
            record = st.game()
            reports = len(st.outbox())
            chosen = store_mod.game_options(record)
    except BaseException:
        if computer is not None:  # no game: no key for it either (a retry would find the old one)
            from pbem.computer import remove_computer_key

            remove_computer_key(_obj().open_home().path, game_id, computer)
        raise
    if computer is not None:
        from pbem.computer import new_computer, save_computer

        save_computer(_obj().open_home().path, game_id, new_computer(computer, strength, computer_iterations))
        _computer_turns(game_id)
        with _obj().open_home().open(game_id) as st:
            status = st.status()
            reports = len(st.outbox())
    if not record.deadline_seconds:
        click.echo(f"warning: game {game_id} has no deadline: its steps never time out (give --deadline, or set the "
                   "home's default: `pbem config --deadline 72h`)", err=True)
    if as_json:
        _echo_json({"game": game_id, "system": record.system, "file": str(st.path),
                    "seed": None if record.commitment else record.seed, "commitment": record.commitment,
                    "practice": record.commitment is None, "options": chosen, "status": status.to_json(),
                    "reports": reports})
        return
    dl = store_mod.format_duration(record.deadline_seconds) if record.deadline_seconds else "none"
    shown = ", ".join(f"{k} {'yes' if v is True else 'no' if v is False else v}" for k, v in chosen.items())
    click.echo(f"created game {game_id} in {st.path}")
    click.echo(f"{game_system.title}: {shown + ', ' if shown else ''}deadline per step {dl}")
    if record.commitment:
        click.echo(f"dice and deals: keyed by a new secret, committed as SHA-256 {record.commitment}")
    else:
        click.echo(f"PRACTICE GAME: seed {record.seed}; its dice and deals can be foreseen (every report says so)")
    click.echo(f"step {status.step}: {status.title} (waits for {', '.join(status.awaiting)})")
    click.echo(f"{reports} reports queued (see `pbem report --game {game_id} --side {sides[0]}`)")


@main.command()
@click.option("--systems", is_flag=True, help="List the game systems pbem can run, with their sides and options.")
@json_option
def games(systems: bool, as_json: bool) -> None:
    """List the games in the folder (--systems: the game systems pbem knows).

    \b
    Example:
        pbem --home ~/club games
        pbem games --systems
    """
    if systems:
        _list_systems(as_json)
        return
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
            where = f"over: {r['result'] or 'the game is over'}" if r["over"] else f"step {r['step']}, {r['where']}"
            click.echo(f"{r['game']}  {where}  {r['file']}")
    if failed:
        sys.exit(1)


def _list_systems(as_json: bool) -> None:
    from pbem.games import find_game, game_names

    found = [find_game(n) for n in game_names()]
    if as_json:
        _echo_json([{"name": g.name, "title": g.title, "sides": list(g.sides),
                     "options": [{"name": o.name, "default": o.default, "choices": list(o.choices), "help": o.help}
                                 for o in g.options]} for g in found])
        return
    for g in found:
        click.echo(f"{g.name}: {g.title}; sides {', '.join(g.sides)}")
        for o in g.options:
            values = "yes|no" if isinstance(o.default, bool) else "|".join(o.choices) or "TEXT"
            default = ("yes" if o.default else "no") if isinstance(o.default, bool) else o.default
            click.echo(f"  -o {o.name}={values} (default {default}): {o.help}")


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
    from pbem import store as store_mod

    home = _obj().open_home()
    when = store_mod.parse_time(now) if now is not None else None
    out, failed = _each_game(home, game_id, lambda st: st.status(when))
    timeless = [s.game for s in out if not s.over and not s.deadline and not s.paused]
    if timeless:
        click.echo(f"warning: no deadline: {', '.join(timeless)} never time{'s' if len(timeless) == 1 else ''} out "
                   "(new games take the home's default: `pbem config --deadline 72h`)", err=True)
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
        if s.paused:
            click.echo("  paused by the moderator: no deadline runs (`pbem resume` restarts it)")
        for side, until in sorted(s.draw_offers.items()):
            click.echo(f"  {side} offers a draw (it stands until step {until} is over)")
    if failed:
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
    from pbem import store as store_mod
    from pbem.transport.common import exclusive

    when = store_mod.parse_time(now) if now is not None else datetime.now(UTC).replace(microsecond=0)
    home = _obj().open_home()
    written: dict[str, str] = {}  # a write failed after something was committed: what failed

    def work(st: Any) -> tuple[str, list[str]]:
        try:
            return st.game_id, st.tick(when)
        except store_mod.StorageError as exc:
            if not exc.done:
                raise
            written[st.game_id] = str(exc)  # the step was resolved (or reminders queued): report that
            click.echo(f"Error: game {st.game_id}: {exc}", err=True)
            return st.game_id, exc.done

    # one damaged game file must not keep the other games' deadlines from being applied
    lock = exclusive(home.path / ".pbem-tick.lock", "tick") if home.path.is_dir() else contextlib.nullcontext()
    with lock:
        ticked, failed = _each_game(home, None, work)
    done = dict(ticked)
    _computer_turns()
    if as_json:
        _echo_json(done)
    else:
        for gid, actions in done.items():
            for a in actions or ["nothing to do"]:
                click.echo(f"{gid}: {a}")
    if failed or written:
        sys.exit(1)


@main.command()
@click.option("--deadline", metavar="DURATION", help="The default deadline per step of a game made without one, like 72h or 3d; none: no default.")
@click.option("--away-cap", metavar="DURATION", help="How far a player's `away until DATE` may move a step's deadline (default 14d).")
@json_option
def config(deadline: str | None, away_cap: str | None, as_json: bool) -> None:
    """Show or change the home's settings (the default deadline per step, the cap on absences).

    A game made without --deadline (by `pbem new`, or a tournament made without one) takes the
    home's default. The settings live in settings.json in the game folder.

    \b
    Example:
        pbem config --deadline 72h
        pbem config
    """
    from pbem import settings as settings_mod
    from pbem.decide import format_duration

    home = _obj().open_home().path
    current = settings_mod.load(home)
    if deadline is not None or away_cap is not None:
        from dataclasses import replace

        from pbem.decide import parse_duration

        if deadline is not None:
            current = replace(current, deadline=settings_mod.deadline_for(home, deadline))
        if away_cap is not None:
            current = replace(current, away_cap=parse_duration(away_cap))
        settings_mod.save(home, current)
    if as_json:
        _echo_json(current.to_json())
        return
    if current.deadline:
        click.echo(f"deadline {format_duration(int(current.deadline.total_seconds()))} (a game made without "
                   "--deadline gets it)")
    else:
        click.echo("deadline none (a game made without --deadline never times out)")
    click.echo(f"away cap {format_duration(int(current.away_cap.total_seconds()))} (how far a player's "
               "`away until DATE` may move a deadline)")
