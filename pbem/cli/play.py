"""Commands that play without a game file: ``pbem simulate``, and ``pbem demo``, the sample game."""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

import click

from pbem.cli.base import (
    _echo_json,
    _obj,
    _pairs,
    _side_name,
    json_option,
    main,
)


@main.command()
@click.option("--system", default="caesar", show_default=True, help="The game system.")
@click.option("--games", "n", type=click.IntRange(1), default=20, show_default=True, help="How many random games.")
@click.option("--seed", type=int, default=1, show_default=True, help="The first game's seed (then seed+1, ...).")
@click.option("-o", "--option", "options", multiple=True, metavar="NAME=VALUE", help="A game option, like -o tournament=yes.")
@click.option("--tournament", is_flag=True, hidden=True)
@click.option("--free-deployment", is_flag=True, hidden=True)
@click.option("--play", "plays", multiple=True, metavar="SIDE=PLAYER", help="A computer player for a side (Julius Caesar: bot, greedy or random): the games go through the step layer as order text, and the win rates are printed with 95% confidence intervals.")
@click.option("--caesar", "caesar_player", type=click.Choice(["bot", "greedy", "random"]), help="Julius Caesar: --play Caesar=PLAYER.")
@click.option("--pompey", "pompey_player", type=click.Choice(["bot", "greedy", "random"]), help="Julius Caesar: --play Pompey=PLAYER (random when another side is given).")
@click.option("--strength", type=click.FloatRange(0.01), default=1.0, show_default=True, help="The bot's thinking time per step, in units of 2 seconds.")
@click.option("--iterations", type=click.IntRange(1), help="Fix the bot's search to this many iterations per step instead of a time budget (reproducible).")
@json_option
def simulate(system: str, n: int, seed: int, options: tuple[str, ...], tournament: bool, free_deployment: bool,
             plays: tuple[str, ...], caesar_player: str | None, pompey_player: str | None, strength: float,
             iterations: int | None, as_json: bool) -> None:
    """Play random legal games and print the speed and who won.

    With --caesar or --pompey, computer players (bot, greedy, random) play each other.

    \b
    Example:
        pbem simulate --games 100 --seed 7
        pbem simulate --caesar greedy --pompey random --games 4
    """
    from pbem.core.game import option_values
    from pbem.games import find_game

    game_system = find_game(system)
    given: dict[str, str | bool] = {k.replace("-", "_"): v for k, v in _pairs(options, "--option").items()}
    if tournament:
        given["tournament"] = True
    if free_deployment:
        given["free_deployment"] = True
    players = {_side_name(side, game_system.sides): name for side, name in _pairs(plays, "--play").items()}
    for side, name in (("Caesar", caesar_player), ("Pompey", pompey_player)):
        if name:
            players[_side_name(side, game_system.sides)] = name
    if players:
        from pbem.core.game import ComputerPlayers

        if not isinstance(game_system, ComputerPlayers):
            raise click.UsageError(f"{game_system.title} has no computer players; drop --play")
        try:
            values = option_values(game_system.options, given)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        match = game_system.match(n, seed, values, {s: players.get(s, "random") for s in game_system.sides},
                                  strength=strength, iterations=iterations, clock=time.perf_counter)
        if as_json:
            _echo_json({k: v for k, v in match.items() if k != "lines"})
        else:
            click.echo(f"{match['games']} games in {match['seconds']:.1f} s")
            for line in match["lines"]:
                click.echo(line)
        return
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


@main.command()
@click.option("--home", "--demo-home", "demo_home", type=click.Path(file_okay=False, path_type=Path), help="A fresh folder for the demo game (default: the global --home or PBEM_HOME if given, else a new temporary folder).")
@json_option
def demo(demo_home: Path | None, as_json: bool) -> None:
    """Play the sample game: create it, feed every sample submission, write the reports.

    \b
    Example:
        pbem demo --home /tmp/pbem-demo
        pbem --home /tmp/pbem-demo report --game caesar-demo --side Caesar
    """
    obj = _obj()
    home = demo_home or (obj.home if obj.home_given else None)
    temporary = home is None
    if home is None:  # never the current directory: a newcomer's checkout stays clean
        home = Path(tempfile.mkdtemp(prefix="pbem-demo-"))
    from pbem.demo import run_demo

    if as_json:
        _echo_json(dict(run_demo(home, echo=lambda _line: None), temporary=temporary))
    else:
        if temporary:
            click.echo(f"the demo plays in a fresh temporary folder: {home} (choose one with --home DIR)")
        run_demo(home, echo=click.echo)
