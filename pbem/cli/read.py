"""Commands that read a game: ``pbem report``, ``log``, ``state``, ``verify`` and the audit."""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

import click

from pbem.cli.base import (
    _each_game,
    _echo_json,
    _game_sides,
    _obj,
    _side_name,
    game_option,
    json_option,
    main,
)
from pbem.errors import PbemError


@main.command()
@game_option()
@click.option("--side", required=True, help="Whose report: a side, or moderator.")
@click.option("--format", "fmt", type=click.Choice(("text", "html")), default="text", show_default=True)
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
@click.option("--side", default="moderator", show_default=True, help="Show only what this side (or the moderator) may see.")
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
@click.argument("game_id", metavar="GAME")
@click.option("--step", type=int, help="Only the submissions that claimed (or were accepted for) this step.")
@click.option("--orders", is_flag=True, help="Show the orders' text and errors too (both sides': moderator's eyes only).")
@json_option
def submissions(game_id: str, step: int | None, orders: bool, as_json: bool) -> None:
    """List every submission GAME received: time, source, side and step claimed, verdict, reason.

    For the moderator settling "I sent my orders on time": each line says how it came (mail and
    its Message-ID, a file, the computer), its credential, the envelope's time and whether it
    arrived by the claimed step's deadline. Orders are never shown unless --orders is given.

    \b
    Example:
        pbem submissions club-1 --step 3
    """
    from pbem.disputes import submission_lines

    with _obj().open_home().open(game_id) as st:
        lines = submission_lines(st.submission_records(), step=step, orders=orders)
    if as_json:
        _echo_json([line.to_json() for line in lines])
        return
    if not lines:
        click.echo(f"{game_id}: no submissions" + (f" for step {step}" if step is not None else ""))
        return
    for line in lines:
        for text in line.lines():
            click.echo(text)


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
    from pbem.audit import verify_file
    from pbem.records import GAME_FILE_SUFFIX

    folder = _obj().home

    def check(st: Any) -> Any:
        with contextlib.suppress(PbemError):  # ... unless the file is damaged: then the audit says where
            st.recover()  # finish unfinished work first, like every command ...
        return st.verify()

    def direct(gid: str) -> Any:  # a file with nothing to finish: read plain, without loading the store
        return verify_file(folder / f"{gid}{GAME_FILE_SUFFIX}", gid)

    results, failed = _each_game(None, game_id, check, recover=False, quick=direct)
    if as_json:
        _echo_json([{"game": r.game, "ok": r.ok, "steps": r.steps, "submissions": r.submissions,
                     "events": r.events, "reports": r.reports, "reports_on_demand": r.on_demand,
                     "problems": r.problems, "notes": r.notes}
                    for r in results])
    else:
        for r in results:
            if r.ok:
                click.echo(f"{r.game}: OK: {r.steps} steps, {r.submissions} submissions, {r.events} events, "
                           f"{r.checked()}")
            else:
                click.echo(f"{r.game}: FAILED")
                for p in r.problems:
                    click.echo(f"  {p}")
            for note in r.notes:
                click.echo(f"  note: {note}")
    if failed or any(not r.ok for r in results):
        sys.exit(1)


@main.group()
def audit() -> None:
   """Audit bundles: export a whole game, check one on any machine.

   \b
   Example:
       pbem audit export club-1 -o club-1.audit.json
       pbem audit check club-1.audit.json --report my-last-report.txt
   """


@audit.command("export")
@click.argument("game_id", metavar="GAME")
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False, path_type=Path),
             help="The bundle file to write (JSON).")
def audit_export(game_id: str, output: Path) -> None:
   """Write GAME's audit bundle (moderator only: it holds BOTH sides' orders).

   The secret is in it only when the game is over; a running game's bundle checks
   everything but the draws.

   \b
   Example:
       pbem audit export club-1 -o club-1.audit.json
   """
   from pbem.decide import canonical_json

   with _obj().open_home().open(game_id) as st:
       data = st.audit_bundle()
   try:
       output.write_text(canonical_json(data) + "\n", encoding="utf-8")
   except OSError as exc:
       raise click.ClickException(f"cannot write {output}: {exc}") from None
   click.echo(f"wrote {output}: the audit bundle of game {game_id}. It holds BOTH sides' orders: give it to a "
              "player only when the game is over.")
   if not data["complete"]:
       click.echo("The game is still running: the secret is left out, so `pbem audit check` checks everything "
                  "but the draws, the verdicts and the reports.")


@audit.command("check")
@click.argument("bundle", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--report", "saved", type=click.Path(exists=True, dir_okay=False, path_type=Path),
             help="A text report you were sent: say whether the game sent exactly this.")
def audit_check(bundle: Path, saved: Path | None) -> None:
   """Replay the game of an audit BUNDLE and check everything (no game folder needed).

   Checks the commitment, every signature, every draw, the hash chain, and that every
   report is byte-identical to a fresh rendering. Exit code 1 on any difference.

   \b
   Example:
       pbem audit check club-1.audit.json --report step-12-report.txt
   """
   from pbem.bundle import check_bundle, check_saved_report

   text = bundle.read_text(encoding="utf-8")
   result = check_bundle(text)
   r = result.report
   if r.ok:
       click.echo(f"{r.game}: OK: {r.steps} steps, {r.submissions} submissions, {r.events} events, "
                  f"{r.checked()}" + ("" if result.draws_checked else " (not the draws)"))
   else:
       click.echo(f"{r.game}: FAILED")
       for p in r.problems:
           click.echo(f"  {p}")
   for note in result.notes:
       click.echo(f"note: {note}")
   genuine = True
   if saved is not None:
       verdict = check_saved_report(text, saved.read_text(encoding="utf-8"))
       genuine = verdict.startswith("this report is genuine")
       click.echo(verdict)
   if not r.ok or not genuine:
       sys.exit(1)


@main.command()
@click.option("-o", "--output", "output", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The folder to write the site into (made if missing).")
def site(output: Path) -> None:
    """Write the club's public pages: tournaments, every game, and a page per game.

    Built only from facts both sides know (the events for all, the score and result, whose
    turn it is and the deadline): never a hidden block or anything sent to one side.

    \b
    Example:
        pbem site -o public_html
    """
    from pbem.site import write_site

    written = write_site(_obj().open_home(), output)
    click.echo(f"wrote {len(written)} pages into {output} (open {output / 'index.html'})")
