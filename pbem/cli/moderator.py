"""The moderator's actions on a game: ``pbem forfeit`` (stored and replayed as moderator submissions)."""
from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.base import _echo_json, _game_sides, _obj, _side_name, json_option, main


@main.command()
@click.argument("game_id", metavar="GAME")
@click.option("--side", required=True, help="The side that forfeits: the other side wins.")
@json_option
def forfeit(game_id: str, side: str, as_json: bool) -> None:
    """End GAME by the moderator's ruling: SIDE forfeits, the other side wins.

    The ruling is an event of the game's hash chain (both players' final reports and `pbem log`
    show it), stored as a moderator submission that `pbem verify` replays.

    \b
    Example:
        pbem forfeit club-1 --side Pompey
    """

    side = _side_name(side, _game_sides(game_id))
    with _obj().open_home().open(game_id) as st:
        receipt = st.moderator_action("forfeit", side)
        result = st.status().result
    if as_json:
        _echo_json(receipt.to_json())
        return
    if receipt.verdict.value != "accepted":
        raise click.ClickException(f"the forfeit was not applied: {receipt.reason}")
    click.echo(f"{game_id}: {side} forfeits (submission #{receipt.submission}, the moderator's); {result}")


@main.command()
@click.argument("game_id", metavar="GAME")
@click.option("--by", "by", required=True, metavar="DURATION", help="How much later the open step's deadline falls, like 48h or 2d.")
@json_option
def extend(game_id: str, by: str, as_json: bool) -> None:
    """Move the deadline of GAME's open step later by a duration.

    Both players are told (an event of the game's hash chain, in their next reports and in
    `pbem log`); it is stored as a moderator submission that `pbem verify` replays.

    \b
    Example:
        pbem extend club-1 --by 48h
    """
    from pbem.decide import parse_duration

    with _obj().open_home().open(game_id) as st:
        receipt = st.moderator_action("extend", by=parse_duration(by))
        status = st.status()
    if as_json:
        _echo_json({**receipt.to_json(), "deadline": status.deadline})
        return
    if receipt.verdict.value != "accepted":
        raise click.ClickException(f"the extension was not applied: {receipt.reason}")
    click.echo(f"{game_id}: step {status.step} is now due {status.deadline} (submission #{receipt.submission}, "
               "the moderator's)")


def _clock_action(game_id: str, action: str, as_json: bool) -> None:
    with _obj().open_home().open(game_id) as st:
        receipt = st.moderator_action(action)
        status = st.status()
    if as_json:
        _echo_json({**receipt.to_json(), "deadline": status.deadline, "paused": status.paused})
        return
    if receipt.verdict.value != "accepted":
        raise click.ClickException(f"the {action} was not applied: {receipt.reason}")
    now = "paused: no deadline runs" if status.paused else (
        f"step {status.step} is due {status.deadline}" if status.deadline else f"step {status.step} has no deadline")
    click.echo(f"{game_id}: {now} (submission #{receipt.submission}, the moderator's)")


@main.command()
@click.argument("game_id", metavar="GAME")
@json_option
def pause(game_id: str, as_json: bool) -> None:
    """Pause GAME: no deadline runs (no defaults, no reminders) until `pbem resume`.

    Players may still send orders; both are told (an event of the game's hash chain), and it is
    stored as a moderator submission that `pbem verify` replays.

    \b
    Example:
        pbem pause club-1
    """
    _clock_action(game_id, "pause", as_json)


@main.command()
@click.argument("game_id", metavar="GAME")
@json_option
def resume(game_id: str, as_json: bool) -> None:
    """Resume a paused GAME: the open step gets a whole deadline from now.

    \b
    Example:
        pbem resume club-1
    """
    _clock_action(game_id, "resume", as_json)


@main.command()
@click.argument("game_id", metavar="GAME")
@click.option("--side", required=True, help="The side the substitute takes over.")
@click.option("--email", required=True, help="The substitute's email address: the side's reports go there from now on.")
@click.option("--key", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="The substitute's public key (FILE.pub from `pbem keygen`).")
@click.option("--password", help="Password mode for the substitute instead (stored only as a scrypt hash).")
@json_option
def replace(game_id: str, side: str, email: str, key: Path | None, password: str | None, as_json: bool) -> None:
    """Give a side of GAME to a substitute player; the old credentials stop working at once.

    Both players are told (an event of the game's hash chain); it is stored as a moderator
    submission that `pbem verify` replays, each earlier submission still checked against the
    credential it was sent with.

    \b
    Example:
        pbem replace club-1 --side Pompey --email cato@example.org --key cato.pub
    """
    from pbem.credentials import hash_password
    from pbem.store import PlayerSetup

    side = _side_name(side, _game_sides(game_id))
    if (key is None) == (password is None):
        raise click.UsageError("give the substitute exactly one credential: --key FILE.pub or --password P")
    public = None
    if key is not None:
        try:
            public = key.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise click.ClickException(f"cannot read the key file {key}: {exc}") from None
    new = PlayerSetup(side, email, public_key=public, password_hash=hash_password(password) if password else None)
    with _obj().open_home().open(game_id) as st:
        receipt = st.moderator_action("replace", side, substitute=new)
    if as_json:
        _echo_json(receipt.to_json())
        return
    if receipt.verdict.value != "accepted":
        raise click.ClickException(f"the replacement was not applied: {receipt.reason}")
    click.echo(f"{game_id}: {side} is now played by {email} (submission #{receipt.submission}, the moderator's); "
               "the previous player's credentials no longer work")
