"""The club's commands: ``pbem run`` (the whole loop for cron) and ``pbem tournament``."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import click

from pbem.cli.base import PbemGroup, _echo_json, _obj, _pairs, json_option, main, progress_bar
from pbem.cli.mail import MailboxChoice, _host_port, _mailbox_options, jobs_option
from pbem.workers import cores


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
@jobs_option
@json_option
def run(mbox: Path | None, maildir: Path | None, imap_url: str | None, imap_password_file: Path | None,
        imap_starttls: bool, imap_cafile: Path | None, retry: bool, server: str, sender: str, starttls: bool,
        user: str | None, dry_run: Path | None, every: str | None, count: int | None, now: str | None,
        jobs: int | None, as_json: bool) -> None:
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

    from pbem import store as store_mod
    from pbem.club import RunBusy, run_once
    from pbem.transport.outbox import DryRunTransport, SmtpTransport, Transport

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
    done = 0
    needs = False
    while True:
        started = time.monotonic()
        try:
            with progress_bar(not as_json) as progress:  # on a terminal only (stderr): cron's mail stays the summary
                fetch = (lambda h: box.read(h, None if as_json else lambda r: click.echo(r.line()),
                                            jobs=jobs or cores(), progress=progress)) if box.given else None
                result = run_once(home, fetch=fetch, transport=transport(), sender=sender, now=when,
                                  mark_sent=dry_run is None, echo=echo, progress=progress)
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
@click.option("--deadline", metavar="DURATION", help="Time for each step of every game, like 72h or 3d, or none (default: the home's, `pbem config`).")
@click.option("--moderator-email", default="", help="Where the moderator's copies of the reports go.")
@click.option("--seed", type=click.IntRange(0, 2**62 - 1), help="Practice games: their dice follow seeds made from this one (default: every game's dice are keyed by its own secret).")
@click.option("--away-cap", metavar="DURATION", help="How far a player's `away until DATE` may move a deadline of its games, like 10d (default: the home's, `pbem config --away-cap`).")
def tournament_new(name: str, rounds: int | None, fmt: str, system: str, options: tuple[str, ...],
                   deadline: str | None, moderator_email: str, seed: int | None, away_cap: str | None) -> None:
    """Create a tournament.

    \b
    Example:
        pbem tournament new spring --rounds 3 --deadline 72h
        pbem tournament new league --format round-robin --system caesar -o tournament=yes
        pbem tournament new cup --format knockout --deadline 3d --away-cap 10d
    """
    from pbem.decide import parse_duration
    from pbem.settings import deadline_for
    from pbem.tournament import Tournament

    values = {k.replace("-", "_"): v for k, v in _pairs(options, "--option").items()}
    home = _obj().open_home()
    per_step = deadline_for(home.path, deadline)
    cap = parse_duration(away_cap) if away_cap is not None else None
    with Tournament.create(home, name, fmt=fmt, rounds=rounds, system=system, options=values,
                           deadline=per_step,
                           seed=seed,
                           moderator_email=moderator_email, away_cap=cap) as t:
        click.echo(f"created tournament {name} in {t.path}")
        click.echo(t.summary_line())
        if per_step is None:
            click.echo("warning: no deadline (no --deadline and no home default, `pbem config --deadline 72h`): "
                       "its games never time out, and a player who stops answering stops the round", err=True)


@tournament.command("config")
@click.argument("name")
@click.option("--away-cap", metavar="DURATION", help="How far a player's `away until DATE` may move a deadline of this tournament's games, like 10d; `home` for the home's cap.")
def tournament_config(name: str, away_cap: str | None) -> None:
    """Show or change a tournament's settings (the absence cap).

    The cap applies at once, to the running games too. Without options: show them.

    \b
    Example:
        pbem tournament config spring --away-cap 10d
        pbem tournament config spring
    """
    from pbem.decide import format_duration, parse_duration
    from pbem.settings import load
    from pbem.tournament import Tournament

    home = _obj().open_home()
    with Tournament(home, name) as t:
        if away_cap is not None:
            t.set_away_cap(None if away_cap.strip().lower() == "home" else parse_duration(away_cap))
        rec = t.record()
        own = rec.away_cap_seconds
        cap = (format_duration(own) if own else
               f"the home's, {format_duration(int(load(home.path).away_cap.total_seconds()))} (`pbem config --away-cap`)")
        per_step = format_duration(rec.deadline_seconds) if rec.deadline_seconds else "none"
        click.echo(f"{name}: deadline per step {per_step}; absences may move a deadline by at most {cap}")


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
    from pbem.cli.games import _player
    from pbem.tournament import Tournament

    setup = _player(player, email, key, password, f"--key {key}" if key else "")
    with Tournament(_obj().open_home(), name) as t:
        t.add_player(player, email, public_key=setup.public_key, password_hash=setup.password_hash)
        click.echo(f"{player} joined {name} ({len(t.entrants())} players)")


@tournament.command("join")
@click.argument("name")
@click.option("--player", "player", required=True, metavar="NAME", help="Your name, as the standings will show it.")
@click.option("--email", required=True, help="Your address: send the block from it (pairings and reports go there).")
@click.option("--key", "key_file", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Your private key (FILE.key from `pbem keygen`); the block carries its public half.")
def tournament_join(name: str, player: str, email: str, key_file: Path) -> None:
    """Print a signed request to join a tournament, to mail to the club.

    A player runs it on his own machine (no game folder needed) and mails the block
    from the address he gives; `pbem inbox` / `pbem run` at the club take it and
    answer (welcome, or what is wrong). A password player instead mails the lines
    `join NAME`, `name: ...` and `password: ...`.

    \b
    Example:
        pbem tournament join spring --player Ann --email ann@example.org --key ann.key
    """
    from pbem.join import join_block

    click.echo(join_block(name, player, email, key_file.read_bytes()), nl=False)


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
