"""The mail loop's commands: ``pbem inbox`` (mbox, Maildir, IMAP) and ``pbem send`` (SMTP)."""
from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pbem.cli.base import (
    F,
    _computer_turns,
    _echo_json,
    _obj,
    game_option,
    json_option,
    main,
    progress_bar,
)
from pbem.workers import cores

if TYPE_CHECKING:
    from pbem.store import Home



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
            from pbem.transport.imap import parse_imap_url

            parse_imap_url(self.imap_url)  # a wrong address is a usage error before anything is read

    def password(self) -> str:
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

    def read(self, home: Home, on_result: Callable[[Any], None] | None, *, jobs: int = 1,
             progress: Callable[[str, int, int], None] | None = None) -> Any:
        """Feed the mailbox's new messages to their games; ``jobs``: worker processes for independent games."""
        from pbem.transport.inbox import read_inbox

        if self.imap_url is not None:
            from pbem.transport.imap import parse_imap_url, read_imap

            return read_imap(home, parse_imap_url(self.imap_url), self.password(), starttls=self.imap_starttls,
                             cafile=self.imap_cafile, retry=self.retry, on_result=on_result, progress=progress,
                             jobs=jobs)
        return read_inbox(home, mbox=self.mbox, maildir=self.maildir, retry=self.retry, on_result=on_result, jobs=jobs,
                          progress=progress)


#: ``--jobs``: how many games a pass over the mailbox feeds at once (None: one per core).
jobs_option = click.option("--jobs", type=click.IntRange(1, 64), default=None, show_default="one per core",
                           help="Worker processes: up to this many games at once (game files are independent).")


@main.command()
@_mailbox_options
@jobs_option
@json_option
def inbox(mbox: Path | None, maildir: Path | None, imap_url: str | None, imap_password_file: Path | None,
          imap_starttls: bool, imap_cafile: Path | None, retry: bool, jobs: int | None, as_json: bool) -> None:
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
    with progress_bar(not as_json) as progress:  # on a terminal only: stderr, nothing when piped or with --json
        run = box.read(_obj().open_home(), None if as_json else lambda r: click.echo(r.line()),
                       jobs=jobs or cores(), progress=progress)
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
    from pbem.transport.outbox import DryRunTransport, SmtpTransport, Transport, send_outbox, send_summary

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


@main.command()
@game_option()
@click.option("--side", "side_name", metavar="SIDE", help="The player whose choice to set (without it: show every player's).")
@click.option("--every-step", "choice", flag_value="every", help="Send him a report mail at every step.")
@click.option("--fold", "choice", flag_value="fold", help="Fold the steps that ask nothing of him into his next mail that does (the default).")
def mailing(game_id: str, side_name: str | None, choice: str | None) -> None:
    """Show or set which steps a player gets a report mail for.

    By default a player gets at most one mail per step, and only for the steps that
    ask something of him (and the end of the game): the reports of the steps between
    are held and go with that mail, whose report tells everything that happened since
    his last one. A player who wants a mail at every step may opt out.

    \b
    Example:
        pbem mailing --game club-1
        pbem mailing --game club-1 --side Pompey --every-step
    """
    from pbem.cli.base import _side_name

    home = _obj().open_home()
    with home.open(game_id) as st:
        if choice is not None:
            if side_name is None:
                raise click.UsageError("--every-step and --fold need --side SIDE")
            st.set_folding(_side_name(side_name, st.system.sides), choice == "fold")
        elif side_name is not None:
            raise click.UsageError("give --every-step or --fold with --side, or neither to show the choices")
        for side, fold in st.folding().items():
            click.echo(f"{game_id}: {side}: " + ("a mail for each step that asks something of him (folded)"
                                                 if fold else "a mail at every step"))
