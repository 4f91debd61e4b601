"""The store keeps the state a submission's sealed orders made, and decides the step's next submission
against a copy of it: that state must be exactly the one the file gives (its snapshot and the orders
accepted since, replayed), through revisions, rejected orders, absences and resolutions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pbem.core.rng import Rng
from pbem.games.caesar.rules.autoplay import random_orders
from pbem.games.caesar.steps.session import StepKind
from pbem.games.caesar.system import CaesarSystem
from pbem.store import Home, Store
from store_helpers import make_game, signed

if TYPE_CHECKING:
    from conftest import Spy


def _from_the_file(path: Path) -> str:
    fresh = Store(path)  # nothing kept: the snapshot loaded and the accepted orders replayed
    try:
        with fresh._read() as db:
            adj, _snap, _sealed = fresh._decidable(db)
        return json.dumps(adj.to_json(), sort_keys=True)
    finally:
        fresh.close()


def test_the_kept_state_is_the_one_the_file_gives(tmp_path: Path) -> None:
    keys = make_game(tmp_path, seed=11)
    rng = Rng(12)
    hits = n = 0
    with Home(tmp_path).open("g") as store:
        for _ in range(14):
            session = store.adjudication().session
            step = session.step()
            if step.kind is StepKind.OVER:
                break
            first = step.awaiting[0]
            sends = [(first, random_orders(session, first, rng))]
            if len(step.awaiting) > 1:
                sends += [(first, random_orders(session, first, rng)),  # a revision
                          (first, "this is not an order"),  # rejected: the revision still stands
                          (first, "away until 2099-01-01"),  # an absence: not orders for the game
                          (step.awaiting[1], random_orders(session, step.awaiting[1], rng))]
            for side, orders in sends:
                n += 1
                store.receive(signed(keys, side, step.number, orders, n=n))
                with store._read() as db:
                    kept = store._kept
                    adj, snap, sealed = store._decidable(db)
                    hits += kept is not None and kept.session == snap.session and kept.sealed == sealed
                assert json.dumps(adj.to_json(), sort_keys=True) == _from_the_file(store.path)
    assert hits >= 5  # the kept state was used (not only the file)


def test_a_resolved_step_is_not_read_back_and_its_reports_are_those_of_the_stored_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, calls: Spy) -> None:
    """After a resolution the store keeps the new step's state (decide.known_state): the next decision
    works on a copy of it and the step's reports are rendered from it, without reading the text back.
    Rendered again from the stored texts alone (nothing remembered, as `pbem verify` in its own
    process does), every report is the same bytes, and the replay gives the same states."""
    from pbem import decide

    keys = make_game(tmp_path, seed=23)
    rng = Rng(24)
    resolved = n = 0
    with Home(tmp_path).open("g") as store:
        loads = calls(CaesarSystem, "load")
        for _ in range(40):
            session = store.adjudication().session
            step = session.step()
            if step.kind is StepKind.OVER:
                break
            before = len(loads)
            for side in step.awaiting:
                n += 1
                store.receive(signed(keys, side, step.number, random_orders(session, side, rng), n=n))
            resolved += 1
            # (a store just opened reads its open step's state once: from the second step on, nothing)
            assert resolved == 1 or len(loads) == before, f"step {step.number}: a state was read back"
        assert resolved >= 20
        decide._last_loaded.clear()  # nothing remembered: every report from its stored text
        monkeypatch.undo()
        report = store.verify(jobs=1)
    assert report.ok, report.problems
