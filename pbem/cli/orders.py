"""Commands of a player's orders: ``pbem keygen``, ``sign``, ``submit``, and the computer's ``bot``."""
from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from pbem.cli.base import (
    _MAIL_LINE,
    _computer_turns,
    _echo_json,
    _game_sides,
    _obj,
    _side_name,
    game_option,
    json_option,
    main,
)


@main.command()
@click.argument("prefix", type=click.Path(dir_okay=False, path_type=Path))
def keygen(prefix: Path) -> None:
    """Write a new key pair: PREFIX.key (private) and PREFIX.pub (public).

    \b
    Example:
        pbem keygen ann        # writes ann.key and ann.pub; send ann.pub to the moderator
    """
    from pbem.envelope import key_fingerprint, write_keypair


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
    from pbem.envelope import MAX_SUBMISSION_BYTES, load_private_key, new_envelope, password_submission, sign_envelope

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
    from datetime import UTC, datetime

    from pbem.envelope import MAX_SUBMISSION_BYTES
    from pbem.records import Verdict
    from pbem.sealed import receive_sealed

    raw = file.read(MAX_SUBMISSION_BYTES + 1)  # never more: a runaway input must not fill memory or the game file
    source = getattr(file, "name", "-")
    if len(raw) > MAX_SUBMISSION_BYTES:
        raise click.ClickException(f"{'standard input' if source in ('-', '<stdin>') else source} is larger than "
                                   f"{MAX_SUBMISSION_BYTES} bytes, the limit for a submission; nothing was stored "
                                   "(send only the signed file or the block that `pbem sign` printed)")
    # A plain sealed submission is decided without loading the ORM (pbem.sealed); anything else, the whole way.
    receipt = receive_sealed(_obj().home, raw, str(source), game_id, datetime.now(UTC).replace(microsecond=0))
    if receipt is None:
        receipt = _obj().open_home().receive(raw, source=str(source), game=game_id)
        if receipt.verdict is Verdict.ACCEPTED:
            _computer_turns(receipt.game)
    if as_json:
        _echo_json(receipt.to_json())
    else:
        from pbem.receipts import describe_receipt

        for line in describe_receipt(receipt):
            click.echo(line)
    if receipt.verdict is Verdict.REJECTED:
        sys.exit(1)


@main.command()
@game_option()
@click.option("--side", required=True, help="The side the bot plays.")
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
    side = _side_name(side, _game_sides(game_id))
    with _obj().open_home().open(game_id) as st:
        adj = st.adjudication()
        log = [ev for _, _, ev in st.events(side)]  # only the events this side may see
        system = st.system
    step = adj.step()
    if not step.awaits(side):
        waiting = ", ".join(step.awaiting) or "nobody"
        raise click.ClickException(f"step {step.number} ({step.title}) waits for {waiting}, not {side}")
    from pbem.core.game import ComputerPlayers

    if not isinstance(system, ComputerPlayers):
        raise click.ClickException(f"{system.title} has no computer player")
    text, why = system.computer_answer(adj, log, side, strength=strength, iterations=iterations,
                                       seed=step.number if seed is None else seed, clock=time.perf_counter)
    click.echo(text, nl=False)
    if explain:
        for line in why:
            click.echo(f"# {line}")
