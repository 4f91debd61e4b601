"""The core's promises, checked against both games: Julius Caesar and the sealed-bid toy.

Whatever the game, a game file plays by signed submissions to its end or for many steps, every
submission is accepted or refused whole, `pbem verify` replays it all and catches an altered
event, a deadline applies the defaults, and a stored state loads back exactly. Nothing here knows
either game's rules: it uses only the GameSystem interface (pbem/core/game.py).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import toygame
from pbem.envelope import generate_keypair, new_envelope, sign_envelope
from pbem.games import find_game, register
from pbem.store import GameSetup, Home, PlayerSetup, Verdict

register(toygame.SYSTEM)
GAMES = ["caesar", "toy"]
START = datetime(2025, 3, 1, 12, tzinfo=UTC)


def _make(home: Path, system: str, *, deadline: timedelta | None = None) -> dict[str, object]:
    sides = find_game(system).sides
    keys = {s: generate_keypair() for s in sides}
    players = tuple(PlayerSetup(s, f"{s.lower()}@example.org", public_key=keys[s].public_text) for s in sides)
    Home(home, clock=lambda: START).create(GameSetup("g", players, system=system, deadline=deadline)).close()
    return keys


def _play(home: Path, keys: dict[str, object], steps: int, seed: int = 1) -> int:
    """Random legal submissions from every awaited side for up to ``steps`` steps; returns steps played."""
    h = Home(home, clock=lambda: START)
    played = 0
    for n in range(steps):
        with h.open("g") as st:
            adj = st.adjudication()
            step = adj.step()
            if step.over:
                return played
            todo = {side: st.system.random_orders(adj, side, seed * 1000 + n * 10 + i)
                    for i, side in enumerate(step.missing)}
        for side, orders in todo.items():
            env = new_envelope("g", side, step.number, orders)
            r = h.receive(sign_envelope(env, keys[side].private_pem).to_json().encode())  # type: ignore[attr-defined]
            assert r.verdict is Verdict.ACCEPTED, (side, orders, r.reason, r.errors)
        played += 1
    return played


@pytest.mark.parametrize("system", GAMES)
def test_a_game_plays_by_signed_submissions_and_verify_replays_it(tmp_path: Path, system: str) -> None:
    keys = _make(tmp_path, system)
    assert _play(tmp_path, keys, 6) >= 3
    with Home(tmp_path).open("g") as st:
        assert st.game().system == system
        report = st.verify()
        assert report.ok, report.problems
        assert report.submissions >= 3 and report.reports > 0
    with sqlite3.connect(tmp_path / "g.db") as db:  # one altered event is named
        db.execute("UPDATE event SET text = text || '!' WHERE seq = (SELECT max(seq) FROM event)")
    with Home(tmp_path).open("g") as st:
        assert any("does not match its hash" in p for p in st.verify().problems)


@pytest.mark.parametrize("system", GAMES)
def test_a_refused_submission_changes_nothing(tmp_path: Path, system: str) -> None:
    keys = _make(tmp_path, system)
    with Home(tmp_path).open("g") as st:
        state = st.adjudication().to_json()
        side = st.adjudication().step().awaiting[0]
    env = new_envelope("g", side, 1, "no such order at all")
    r = Home(tmp_path).receive(sign_envelope(env, keys[side].private_pem).to_json().encode())  # type: ignore[attr-defined]
    assert r.verdict is Verdict.REJECTED and r.errors and r.errors[0]["line"] == 1
    with Home(tmp_path).open("g") as st:
        assert st.adjudication().to_json() == state
        assert [r.verdict for r in st.submissions()] == ["rejected"]


@pytest.mark.parametrize("system", GAMES)
def test_a_deadline_applies_the_defaults(tmp_path: Path, system: str) -> None:
    _make(tmp_path, system, deadline=timedelta(hours=72))
    h = Home(tmp_path, clock=lambda: START)
    with h.open("g") as st:
        first = st.status().step
    done = h.tick(START + timedelta(hours=73))
    assert any("resolved at its deadline" in line for line in done["g"]), done
    with h.open("g") as st:
        assert st.status().step == first + 1
        assert st.verify().ok


@pytest.mark.parametrize("system", GAMES)
def test_a_stored_state_loads_back_exactly(tmp_path: Path, system: str) -> None:
    keys = _make(tmp_path, system)
    _play(tmp_path, keys, 2)
    with Home(tmp_path).open("g") as st:
        adj = st.adjudication()
        data = json.loads(json.dumps(adj.to_json()))
        assert st.system.load(data).to_json() == adj.to_json()
        assert adj.copy().to_json() == adj.to_json()
