"""A submission is checked once on its way in: the Julius Caesar adjudication keeps the lines its
``check`` found for the ``warnings`` and ``submit`` that follow (pbem.decide), only for the same
side, text and state, and the outcome is the one of checking each time."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from pbem.core.orders import SubmissionRejected
from pbem.core.rng import Rng
from pbem.games.caesar.rules.autoplay import random_orders
from pbem.games.caesar.steps.session import Session
from pbem.games.caesar.system import SYSTEM

if TYPE_CHECKING:
    from conftest import Spy


def test_check_warnings_submit_check_once_and_end_as_submit_alone(monkeypatch: pytest.MonkeyPatch,
                                                                   calls: Spy) -> None:
    adj, _ = SYSTEM.start(7, {})
    rng = Rng(8)
    for _ in range(12):  # a dozen steps of random orders, each side in turn
        step = adj.step()
        if step.kind == "over":
            break
        side = next(s for s in step.awaiting if s not in step.received)
        text = random_orders(adj.session, adj.session.step().awaiting[step.awaiting.index(side)], rng)
        alone = adj.copy()
        checked = calls(Session, "check", lambda _self, _side, text: text)
        adj.check(side, text)
        warned = adj.warnings(side, text)
        events = adj.submit(side, text, "e" * 64)
        assert checked == [text]  # once, not three times
        monkeypatch.undo()
        assert warned == alone.warnings(side, text)
        assert events == alone.submit(side, text, "e" * 64)
        assert adj.to_json() == alone.to_json()


def test_other_text_or_a_changed_state_is_checked_again() -> None:
    adj, _ = SYSTEM.start(7, {})
    side = adj.step().awaiting[0]
    hand = adj.session.game.state.hands[adj.session.step().awaiting[0]]
    good = f"discard {hand[0]}\nplay {hand[1]}\n"
    adj.check(side, good)
    with pytest.raises(SubmissionRejected):
        adj.submit(side, "discard 9/9\nplay nonsense\n")  # not the text that was checked
    adj.check(side, good)
    other = adj.step().awaiting[1]
    other_hand = adj.session.game.state.hands[adj.session.step().awaiting[1]]
    adj.submit(other, f"discard {other_hand[0]}\nplay {other_hand[1]}\n")  # the state changed since the check
    assert adj._checked is None
    assert adj.submit(side, good)  # checked afresh, and it resolves the step
