"""The README stays true: its order examples parse and are legal where it says, its defaults are the code's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pbem.caesar.board import Side
from pbem.caesar.game import new_game
from pbem.caesar.orders import parse_orders
from pbem.caesar.scenario import build_game
from pbem.caesar.steps import DEFAULTS, Session, StepKind

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
