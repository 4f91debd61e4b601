"""The step layer: checking submissions, resolving steps, defaults, hidden information."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from pbem.core.rng import Rng
from pbem.games.caesar.rules.autoplay import random_orders
from pbem.games.caesar.rules.board import BlockType, Side, default_board
from pbem.games.caesar.rules.game import Game, new_game
from pbem.games.caesar.rules.state import Options
from pbem.games.caesar.steps.session import BattleMode, Session, Settings, StepKind, SubmissionRejected

C, P = Side.CAESAR, Side.POMPEY
BOARD = default_board()


def play_until(session: Session, rng: Rng, stop: Any, limit: int = 400) -> bool:
    """Feed random legal submissions until ``stop(session)`` is true."""
    for _ in range(limit):
        if stop(session):
            return True
        step = session.step()
        if step.kind is StepKind.OVER:
            return False
        for side in step.awaiting:
            session.submit(side, random_orders(session, side, rng))
            if session.step().number != step.number:
                break
    return stop(session)


def at_first_command(seed: int) -> Session:
    """A session past the year start: each side discarded a card and played its highest command card."""
    s = Session(new_game(seed))
    h = s.game.state.hands
    for side in (C, P):
        cmd = sorted(c for c in h[side] if "/" in c)[-1]
        other = next(c for c in h[side] if c != cmd)
        s.submit(side, f"discard {other}\nplay {cmd}\n")
    return s


def at_command_of_player2(s: Session) -> bool:
    st = s.step()
    return st.kind is StepKind.COMMAND and st.awaiting[0] is not s.game.state.player1 and bool(s.game.state.contests)


@pytest.mark.parametrize("mode", list(BattleMode))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_whole_games_through_steps(seed: int, mode: BattleMode) -> None:
    s = Session(new_game(seed, Options(free_deployment=seed == 2)), Settings(mode))
    assert play_until(s, Rng(seed), lambda s: s.step().kind is StepKind.OVER, limit=2000)
    assert s.game.state.result is not None


def test_session_round_trips_and_replays_identically() -> None:
    def run() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        s = Session(new_game(5))
        rng = Rng(77)
        snaps = []
        for _ in range(40):
            step = s.step()
            for side in step.awaiting:
                s.submit(side, random_orders(s, side, rng))
                if s.step().number != step.number:
                    break
            snaps.append(s.to_json())
            assert Session.from_json(s.to_json()).to_json() == s.to_json()
        return snaps, s.to_json()

    assert run() == run()


def test_rejection_lists_every_error_and_changes_nothing() -> None:
    s = Session(new_game(42))
    hand = s.game.state.hands[C]
    before = s.to_json()
    with pytest.raises(SubmissionRejected) as exc:
        s.submit(C, "play Apollo\nmove Genua -> Roma: Legio 8\ndiscard Nothing\n")
    errors = exc.value.errors
    assert [e.lineno for e in errors] == [1, 2, 3]
    assert "Apollo is not in your hand" in errors[0].message
    assert "unknown card" in str(exc.value)
    assert "this order belongs to your command step" in str(exc.value)
    assert s.to_json() == before
    # a good submission is accepted and the step waits for the other side
    cmd = sorted(c for c in hand if "/" in c)[-1]
    other = next(c for c in hand if c != cmd)
    assert s.submit(C, f"discard {other}\nplay {cmd}\n") == []
    assert s.step().kind is StepKind.YEAR_START
    # a revision replaces it
    assert s.submit(C, f"discard {other}\nplay {cmd}\n") == []


def test_command_errors_name_the_rule_and_what_is_legal() -> None:
    s = at_first_command(42)
    step = s.step()
    assert step.kind is StepKind.COMMAND and step.awaiting == (C,)
    with pytest.raises(SubmissionRejected) as exc:
        s.submit(C, "move Massilia -> Roma: Legio 11\nmove Genua -> Lugdunum: Legio 8, Legio 12, Antonius\nlevy Legio 17\n")
    text = str(exc.value)
    assert "no road from Massilia to Roma; from Massilia you can reach Genua, Lugdunum, Mare Hispanum" not in text
    assert "no road from Massilia to Roma; from Massilia you can reach Genua, Lugdunum, Narbo" in text
    assert "the minor road Genua-Lugdunum has carried 2 of your blocks this turn; its limit is 2" in text
    assert "Legio 17 is raised only in Roma" in text or "Roma is" in text


def _disguise(game: Game, side: Side, rng: Rng) -> Game:
    """The same position with ``side``'s hidden blocks swapped for others of the same kind and random strengths."""
    data = copy.deepcopy(game.to_json())
    blocks = data["blocks"]
    ids = [b for b, v in blocks.items() if BOARD.blocks[b].side is side and v["status"] in ("map", "pool")]
    land = [b for b in ids if not BOARD.blocks[b].is_navis and BOARD.blocks[b].type is not BlockType.CLEOPATRA]
    navis = [b for b in ids if BOARD.blocks[b].is_navis]
    rename: dict[str, str] = {}
    for group in (land, navis):
        shuffled = list(group)
        rng.shuffle(shuffled)
        rename.update(zip(group, shuffled))
    new_blocks = dict(blocks)
    for old, new in rename.items():
        v = dict(blocks[old])
        info = BOARD.blocks[new]
        v["strength"] = rng.choice(list(info.strengths())) if v["status"] == "map" else info.min_strength
        new_blocks[new] = v
    data["blocks"] = new_blocks
    data["moved"] = sorted(rename.get(b, b) for b in data["moved"])
    for c in data["contests"].values():
        c["entries"] = [[s, f, rename.get(b, b)] for s, f, b in c["entries"]]
    return Game.from_json(data)


def test_player2_errors_do_not_depend_on_hidden_enemy_blocks() -> None:
    checked = 0
    for seed in range(40):
        s = Session(new_game(seed))
        rng = Rng(seed)
        if not play_until(s, rng, at_command_of_player2):
            continue
        p2 = s.step().awaiting[0]
        p1 = p2.enemy
        # orders to check: a legal random submission, plus moves of every own block to every neighbour and beyond
        texts = [random_orders(s, p2, rng)]
        lines = []
        for bid in s.game.state.on_map(p2):
            loc = s.game.state.blocks[bid].loc
            name = s.game.label(bid)
            for n, _ in BOARD.neighbors_by_road(loc):
                lines.append(f"move {loc} -> {n}: {name}")
                for m, _ in BOARD.neighbors_by_road(n):
                    lines.append(f"move {loc} -> {n} -> {m}: {name}")
            lines.append(f"levy step {name}")
        texts.append("\n".join(lines))
        base = _errors(s, p2, texts)
        assert any(base), "the probe orders should produce errors"
        enemy_names = {BOARD.blocks[b].name for b in s.game.state.on_map(p1)} - {
            BOARD.blocks[b].name for b in BOARD.blocks if BOARD.blocks[b].side is p2
        } - {"Caesar", "Pompey"}  # leaders named like the sides
        for msgs in base:
            for m in msgs:
                for n in enemy_names:
                    assert not re.search(rf"\b{re.escape(n)}\b", m), f"error message names hidden enemy block {n}: {m}"
        for k in range(3):
            other = Session(_disguise(s.game, p1, Rng(seed * 10 + k)), s.settings, s.step_no)
            assert _errors(other, p2, texts) == base
        checked += 1
        if checked >= 6:
            break
    assert checked >= 3


def _errors(s: Session, side: Side, texts: list[str]) -> list[list[str]]:
    out = []
    for t in texts:
        try:
            s.check(side, t)
            out.append([])
        except SubmissionRejected as exc:
            out.append([str(e) for e in exc.errors])
    return out


def test_defaults_are_named_in_events() -> None:
    s = Session(new_game(8))
    rng = Rng(8)
    events = []
    for _ in range(60):
        step = s.step()
        if step.kind is StepKind.OVER:
            break
        if step.kind is StepKind.BATTLES:
            for side in step.awaiting:
                events += s.submit(side, "pass\n")
            continue
        for side in step.awaiting:
            events += s.submit(side, random_orders(s, side, rng))
            if s.step().number != step.number:
                break
    defaults = [e for e in events if e.kind == "default"]
    assert defaults, "battles without plans must apply published defaults"
    assert all(e.audience in ("Caesar", "Pompey") for e in defaults)
    assert all(e.data["rule"] for e in defaults)


def test_deadline_applies_defaults_for_missing_sides() -> None:
    s = Session(new_game(3))
    hand = s.game.state.hands[C]
    s.submit(C, f"discard {hand[0]}\nplay {sorted(c for c in hand[1:] if '/' in c)[0]}\n")
    events = s.resolve(deadline=True)
    texts = [e.text for e in events]
    assert any("deadline passed without orders from Pompey" in t for t in texts)
    assert any("Pompey discards" in t and "(default)" in t for t in texts)
    assert s.step().kind is StepKind.COMMAND


def test_messages_about_blocks_that_are_not_yours_use_names_and_public_facts() -> None:
    s = at_first_command(42)
    with pytest.raises(SubmissionRejected) as exc:
        s.submit(C, "move Neapolis -> Roma: Legio 1\nmove Genua -> Roma: Legio 17\nlevy Legio 17\njupiter Roma\n")
    msgs = [e.message for e in exc.value.errors]
    assert msgs[0].startswith("Legio 1 is a Pompey block, not one of yours")
    assert msgs[1].startswith("Legio 17 is in your levy pool, not on the map")
    assert "new blocks you can raise now: " in msgs[2]
    assert msgs[3].startswith("'jupiter' is the order of the Jupiter event; your card is")
    assert not any(":" in m.split(" ")[0] for m in msgs), "no internal block ids like 'Caesar:Legio 8'"


def test_deployment_orders_name_a_city_once() -> None:
    s = Session(new_game(1, Options(free_deployment=True)))
    assert s.step().kind is StepKind.DEPLOYMENT
    with pytest.raises(SubmissionRejected) as exc:
        s.submit(C, "deploy Ravenna: Caesar\ndeploy Ravenna: Legio 13, Navis 2\n")
    assert exc.value.errors[0].message == "Ravenna is deployed twice (lines 1 and 2): one line per city"


def test_battle_plans_naming_enemy_blocks_say_whose_they_are() -> None:
    s = Session(new_game(42))
    rng = Rng(42)
    assert play_until(s, rng, lambda s: s.step().kind is StepKind.BATTLES)
    loc = sorted(s.game.state.contests)[0]
    side = s.step().awaiting[0]
    enemy_native = next(b for b in BOARD.blocks.values() if b.side is side.enemy and b.is_leader)
    with pytest.raises(SubmissionRejected) as exc:
        s.check(side, f"battle {loc}: hits {enemy_native.name}\n")
    msg = exc.value.errors[0].message
    assert msg.startswith(f"{enemy_native.name} is a {side.enemy.value} block, not one of yours")
    assert f"your blocks in the battle of {loc}: " in msg
