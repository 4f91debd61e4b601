"""The README stays true: its order examples parse and are legal where it says, its defaults are the code's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pbem.games.caesar.orders.language import parse_orders
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.game import new_game
from pbem.games.caesar.rules.scenario import build_game
from pbem.games.caesar.steps.session import DEFAULTS, Session, StepKind

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```orders (\w+)\n(.*?)```", README, re.S)
C, P = Side.CAESAR, Side.POMPEY


def block_starting(first_line: str) -> str:
    for _, text in BLOCKS:
        if text.startswith(first_line):
            return text
    raise AssertionError(f"no README orders block starts with {first_line!r}")


def test_there_are_order_examples() -> None:
    assert len(BLOCKS) >= 7


@pytest.mark.parametrize("side,text", BLOCKS)
def test_every_example_parses(side: str, text: str) -> None:
    orders, errors = parse_orders(text, Side.parse(side))
    assert errors == []
    assert len(orders) == len([ln for ln in text.splitlines() if ln.strip()])
    for o in orders:
        assert str(o.order) == o.text, "README examples are written in the canonical form"


def test_card_example_is_legal_at_a_year_start() -> None:
    seed = next(s for s in range(500) if {"Vulcan", "3/2"} <= set(new_game(s).state.hands[C]))
    session = Session(new_game(seed))
    assert session.step().kind is StepKind.YEAR_START
    session.check(C, block_starting("discard Vulcan"))


def _command_scenario() -> Session:
    return Session(
        build_game(
            {
                "year": 705,
                "turn": 2,
                "seed": 3,
                "blocks": {
                    "Caesar": {
                        "Genua": ["Legio 8", "Legio 12", "Antonius"],
                        "Massilia": ["Legio 11", "Legio 9"],
                        "Narbo": ["Legio 7", "Legio 10"],
                        "Ravenna": ["Caesar", "Legio 13 II"],
                        "Mare Hadriaticum": ["Navis 2"],
                    },
                    "Pompey": {"Roma": ["Legio 1"], "Tarraco": ["Legio 5"], "Neapolis": ["Pompey"]},
                },
                "hands": {"Caesar": ["2/2", "1/2", "2/1"], "Pompey": ["2/2", "1/3", "2/1"]},
                "command": {"player1": "Caesar", "cards": {"Caesar": "3/2", "Pompey": "2/3"}},
            }
        )
    )


def test_command_example_is_legal() -> None:
    session = _command_scenario()
    assert session.step().awaiting == (C,)
    session.submit(C, block_starting("move Genua -> Roma"))
    g = session.game
    assert g.state.blocks["Caesar:Legio 13"].loc == "Brundisium"
    assert g.state.blocks["Caesar:Legio 13"].strength == 3
    assert g.state.blocks["Caesar:Auxilia 1"].loc == "Massilia"
    assert g.state.blocks["Caesar:Legio 11"].loc == "Burdigala"
    assert set(g.blocks_at("Roma", C)) == {"Caesar:Legio 8", "Caesar:Legio 12", "Caesar:Antonius"}


def test_battle_plan_example_is_legal() -> None:
    session = _command_scenario()
    session.submit(C, "move Genua -> Roma: Legio 8, Legio 12, Antonius\nmove Narbo -> Tarraco: Legio 7\n")
    session.submit(P, "pass\n")
    step = session.step()
    assert step.kind is StepKind.BATTLES
    session.check(C, block_starting("battles Roma, Tarraco"))


def test_defaults_table_is_the_code() -> None:
    for key, text in DEFAULTS.items():
        assert f"| `{key}` | {text} |" in README


def test_the_walkthrough_runs_as_written(tmp_path: Path) -> None:
    """Every line of "A game by email, start to finish" works, in order, in an empty folder."""
    import os
    import shutil
    import subprocess
    import sys

    section = README[README.index("## A game by email") :]
    block = section[section.index("```sh\n") + 6 :]
    block = block[: block.index("```")].replace("\\\n", " ")
    lines = [ln.split("  #")[0].strip() for ln in block.splitlines() if ln.strip()]
    assert len(lines) >= 10
    exe = shutil.which("pbem")
    prog = exe if exe else f"{sys.executable} -m pbem"
    env = dict(os.environ, PBEM_HOME=str(tmp_path / "home"))
    for line in lines:
        cmd = line.replace("pbem ", f"{prog} ")
        r = subprocess.run(cmd, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, f"{line}\n{r.stdout}\n{r.stderr}"
    r = subprocess.run(f"{prog} status --json", shell=True, cwd=tmp_path, env=env, capture_output=True, text=True)
    (game,) = json.loads(r.stdout)
    assert (game["game"], game["step"], game["kind"], game["awaiting"]) == ("g1", 2, "command", ["Caesar"])


def test_every_command_is_in_the_readme_with_an_example() -> None:
    from pbem.cli import main

    for name in main.commands:
        head = f"### `pbem {name}`"
        assert head in README, f"README has no section for pbem {name}"
        section = README[README.index(head) :]
        section = section[: section.index("\n### ", 1)] if "\n### " in section[1:] else section
        example = section.split("```sh", 1)[-1]
        assert re.search(rf"\bpbem\b[^\n]*\b{name}\b", example), f"no example of pbem {name} in its README section"


def _command_with(card: str, blocks: dict[str, dict[str, list[str]]]) -> Session:
    return Session(
        build_game(
            {
                "year": 705,
                "turn": 2,
                "seed": 5,
                "blocks": blocks,
                "hands": {"Caesar": ["2/2", "1/2", "2/1"], "Pompey": ["2/2", "1/3", "2/1"]},
                "command": {"player1": "Caesar", "cards": {"Caesar": card, "Pompey": "2/3"}},
            }
        )
    )


def test_event_examples_are_legal_with_their_cards() -> None:
    lines = [ln for ln in block_starting("jupiter ").splitlines() if ln.strip()]
    assert lines == ["jupiter Tarraco -> Narbo", "vulcan Utica", "surprise Tarraco", "no event", "pass"]
    blocks = {
        "Caesar": {"Narbo": ["Legio 7", "Legio 10"], "Massilia": ["Legio 11"]},
        "Pompey": {"Tarraco": ["Legio 5"], "Utica": ["Legio 39"]},
    }
    _command_with("Jupiter", blocks).check(C, lines[0] + "\n")
    _command_with("Vulcan", blocks).check(C, lines[1] + "\n")
    _command_with("Mars", blocks).check(C, f"move Narbo -> Tarraco: Legio 7, Legio 10\n{lines[2]}\n")
    _command_with("Jupiter", blocks).check(C, lines[3] + "\n")
    _command_with("3/2", blocks).check(C, lines[4] + "\n")


def test_winter_example_is_legal_in_a_winter() -> None:
    session = Session(
        build_game(
            {
                "year": 705,
                "turn": 5,
                "seed": 5,
                "phase": "winter",
                "blocks": {
                    "Caesar": {"Genua": ["Legio 8"]},
                    "Pompey": {
                        "Mare Tyrrhenum": ["Navis 1"],
                        "Neapolis": ["Pompey"],
                        "Utica": ["Legio 39"],
                        "Syracusae": ["Legio 37", "Auxilia 2"],
                    },
                },
            }
        )
    )
    step = session.step()
    assert step.kind is StepKind.WINTER and P in step.awaiting  # Navis 1 may winter in Neapolis or Utica
    session.check(P, block_starting("winter: navis"))


def test_deploy_example_is_part_of_a_legal_free_deployment() -> None:
    from pbem.games.caesar.rules.state import Options

    session = Session(new_game(1, Options(free_deployment=True)))
    assert session.step().kind is StepKind.DEPLOYMENT
    example = block_starting("deploy Ravenna")
    rest = (
        "deploy Genua: Antonius, Legio 13, Legio 12\ndeploy Massilia: Legio 11, Legio 14, Navis 1\n"
        "deploy Narbo: Legio 7, Legio 9, Legio 10\ndeploy Lugdunum: Legio 16, Equitatus 1\n"
    )
    session.check(C, example + rest)


def test_interactive_answers_are_legal_on_their_turn() -> None:
    from pbem.games.caesar.steps.session import BattleMode, Settings

    session = _command_with("3/2", {"Caesar": {"Genua": ["Legio 8", "Legio 12"]}, "Pompey": {"Roma": ["Legio 1"]}})
    session.settings = Settings(BattleMode.INTERACTIVE)
    session.submit(C, "move Genua -> Roma: Legio 8, Legio 12\n")
    session.submit(P, "pass\n")
    for side in (C, P):
        session.submit(side, "pass\n")  # no plans: every battle decision is asked
    step = session.step()
    assert step.kind is StepKind.BATTLE and step.awaiting == (P,)  # the defender's C block first (B1)
    session.submit(P, "fire Legio 1\n")
    while session.step().awaiting == (C,) and session.step().decision.kind.value == "hit":
        session.submit(C, "hit Legio 12\n")
    step = session.step()
    assert step.kind is StepKind.BATTLE and step.awaiting == (C,), step
    answers = [ln for ln in block_starting("fire Legio 8").splitlines() if ln.strip()]
    session.check(C, answers[0] + "\n")  # fire Legio 8
    session.check(C, answers[1] + "\n")  # pass Legio 8


def test_python_dash_m_pbem_is_the_command() -> None:
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "pbem", "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("pbem, version ")
