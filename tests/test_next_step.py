"""What to send next: grouped, short enough for a phone, and built from the side's view only."""

from __future__ import annotations

import re

from pbem.core.rng import Rng
from pbem.games.caesar.orders.language import parse_order
from pbem.games.caesar.orders.nextstep import next_step_groups
from pbem.games.caesar.rules.autoplay import random_orders
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.game import new_game
from pbem.games.caesar.rules.state import Options
from pbem.games.caesar.steps.session import Session, StepKind
from pbem.games.caesar.view.views import NextStep, build_view
from report_helpers import render_text

PHONE_LINES = 25  # what a phone shows on one screen of the text mail: the typical (median) step
MOST_LINES = 40  # a command step with blocks in twenty places: two screens at most


def next_step_section(session: Session, side: Side) -> str:
    step = session.step()
    ns = NextStep(step.number, step.title, None, tuple(s.value for s in step.awaiting),
                  tuple(next_step_groups(session, side)))
    text = render_text(build_view(session.game, [], side, next_step=ns))
    return text[text.index("WHAT TO SEND NEXT"):]


def _sessions(seeds: range, steps: int):  # type: ignore[no-untyped-def]
    for seed in seeds:
        s = Session(new_game(seed, Options()))
        rng = Rng(seed + 1000)
        for _ in range(steps):
            step = s.step()
            if step.kind is StepKind.OVER:
                break
            yield s
            for side in step.awaiting:
                s.submit(side, random_orders(s, side, rng))


def test_the_next_step_fits_a_phone_screen_in_random_positions() -> None:
    seen: set[StepKind] = set()
    counts: list[int] = []
    for s in _sessions(range(6), 40):
        for side in s.step().awaiting:
            section = next_step_section(s, side)
            n = len(section.splitlines())
            counts.append(n)
            assert n <= MOST_LINES, f"{s.step().title}: {n} lines\n{section}"
            seen.add(s.step().kind)
    assert {StepKind.COMMAND, StepKind.CARD, StepKind.BATTLES} <= seen
    assert sorted(counts)[len(counts) // 2] <= PHONE_LINES, sorted(counts)
    assert len(counts) > 100


def test_command_step_is_one_line_per_stack_with_a_count_and_an_example() -> None:
    s = Session(new_game(1, Options()))
    rng = Rng(5)
    while s.step().kind is not StepKind.COMMAND:
        for side in s.step().awaiting:
            s.submit(side, random_orders(s, side, rng))
    side = s.step().awaiting[0]
    groups = dict(next_step_groups(s, side))
    (moves_label,) = [k for k in groups if k.startswith("moves")]
    count = int(re.search(r"\((\d+) possible\)", moves_label).group(1))  # type: ignore[union-attr]
    assert count > 50  # a hundred single options, not a hundred blocks of text
    lines = groups[moves_label].splitlines()
    from pbem.games.caesar.orders.language import block_display
    from pbem.games.caesar.rules import movement

    movable = [b for b in movement.movable_blocks(s.game, side) if movement.block_paths(s.game, side, b)]
    places = {s.game.state.blocks[b].loc for b in movable}
    assert len(places) <= len(lines) < len(movable)  # stacks with the same choices share a line
    for b in movable:  # each block on exactly one line
        assert sum(1 for ln in lines if re.search(rf"(^|, ){block_display(s.game.board, b, side)}[,( ]", ln)) == 1, b
    assert all(re.match(r"^[^:]+ \([^)]+\): ", ln) for ln in lines), lines
    assert "Legio" in groups[moves_label]
    (example_label,) = [k for k in groups if k.startswith("example")]
    example = groups[example_label]
    parse_order(example, side)  # a line to copy: it parses
    headings = [ln for ln in next_step_section(s, side).splitlines() if ln.strip().startswith("-- ")]
    assert len(headings) <= 3, headings  # moves, levies, example: not one block of text per option


def test_year_start_is_one_line_per_choice() -> None:
    s = Session(new_game(2, Options()))
    groups = next_step_groups(s, Side.CAESAR)
    body = groups[0][1].splitlines()
    assert body[0].startswith("discard one of: ") and body[1].startswith("play one of: ")
    hand = s.game.state.hands[Side.CAESAR]
    assert all(c in body[0] for c in hand)
    for line in groups[-1][1].splitlines():
        parse_order(line, Side.CAESAR)


def _spec(pompey: dict[str, list[str]]) -> dict[str, object]:
    return {
        "year": 706, "turn": 2, "seed": 4,
        "blocks": {"Caesar": {"Massilia": ["Legio 11", "Legio 14 II", "Navis 1"], "Genua": ["Antonius", "Legio 8"],
                              "Narbo": ["Legio 7"]},
                   "Pompey": pompey},
        "hands": {"Caesar": ["3/2", "2/2", "Mars"], "Pompey": ["2/1", "1/2", "Jupiter"]},
        "command": {"cards": {"Caesar": "3/2", "Pompey": "2/1"}},
    }  # fmt: skip


# the same places and counts, different blocks and strengths: all Caesar cannot see
HIDDEN_A = {"Bilbilis": ["Legio 4"], "Tarraco": ["Legio 5", "Legio 6 I"], "Roma": ["Pompey", "Legio 1"], "Mare Tyrrhenum": ["Navis 2"]}
HIDDEN_B = {"Bilbilis": ["Auxilia 1 I"], "Tarraco": ["Auxilia 3", "Equitatus 2 I"], "Roma": ["Legio 2 I", "Legio 3"], "Mare Tyrrhenum": ["Navis 4 I"]}


def _caesar_text(session: Session) -> str:
    return next_step_section(session, Side.CAESAR)


def test_two_games_differing_only_in_hidden_enemy_blocks_give_the_same_text() -> None:
    from pbem.games.caesar.rules.scenario import build_game

    texts = []
    for hidden in (HIDDEN_A, HIDDEN_B):
        s = Session(build_game(_spec(hidden)))
        out = [_caesar_text(s)]
        # the command step, then the battle-plan step after the same moves
        s.submit(Side.CAESAR, "move Narbo -> Tarraco: Legio 7\nmove Genua -> Roma: Antonius, Legio 8\n")
        s.submit(Side.POMPEY, "pass\n")
        out.append(_caesar_text(s))
        plans = "battle Tarraco: retreat round 2 all -> Bilbilis\nregroup Tarraco: Legio 7 -> Bilbilis\nbattle Tarraco: hits Legio 77\n"
        out += [str(w) for w in s.warnings(Side.CAESAR, plans)]  # warnings, by Caesar's knowledge only
        try:
            s.check(Side.CAESAR, plans)
        except Exception as exc:  # noqa: BLE001 - the refusal's text is what is compared
            out.append(str(exc))
        texts.append(out)
    assert "Tarraco" in texts[0][1] and "battle plans" in texts[0][1]
    assert any("can never be carried out" in t for t in texts[0]) and any("did you mean" in t for t in texts[0])
    assert texts[0] == texts[1]
