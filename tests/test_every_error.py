"""Every problem of a submission in one reply, with line numbers (issue 13)."""

from __future__ import annotations

import pytest

from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.scenario import build_game
from pbem.games.caesar.steps.session import Session, SubmissionRejected


def _session() -> Session:
    # Caesar has 1 Move Point (card 1/2)
    return Session(build_game({
        "blocks": {"Caesar": {"Genua": ["Legio 8", "Legio 12"], "Massilia": ["Legio 11"], "Narbo": ["Legio 7"]}},
        "command": {"cards": {"Caesar": "1/2", "Pompey": "1/3"}},
    }))


def _errors(text: str) -> list[str]:
    with pytest.raises(SubmissionRejected) as info:
        _session().check(Side.CAESAR, text)
    return [str(e) for e in info.value.errors]


def test_two_misspellings_on_one_line_are_both_reported() -> None:
    (err,) = _errors("move Genuaa -> Romaa: Legio 8")
    assert err.startswith("line 1: ")
    assert "unknown location 'Genuaa'; did you mean 'Genua'?" in err
    assert "unknown location 'Romaa'; did you mean 'Roma'?" in err
    (err,) = _errors("move Genua -> Roma: Legio 88, Legio 99")
    assert "'Legio 88'" in err and "'Legio 99'" in err
    (err,) = _errors("move Genuaa -> Roma: Legiox 8")
    assert "'Genuaa'" in err and "'Legiox 8'" in err


def test_no_move_points_left_shows_with_the_other_errors() -> None:
    # line 1 is refused (no road), line 2 would need a second Move Point: both at once
    errs = _errors("move Genua -> Athenae: Legio 8\nmove Massilia -> Genua: Legio 11")
    assert any(e.startswith("line 1: ") and "no road from Genua to Athenae" in e for e in errs), errs
    assert any(e.startswith("line 2: ") and "no Move Points left to activate Massilia" in e for e in errs), errs
    # line 1 does not parse (misspelled destination) but its origin is clear: it uses the Move Point
    errs = _errors("move Genua -> Rom: Legio 8\nmove Massilia -> Narbo: Legio 11")
    assert any(e.startswith("line 1: ") and "'Rom'" in e for e in errs), errs
    assert any(e.startswith("line 2: ") and "no Move Points left" in e for e in errs), errs
    # the same origin twice uses one Move Point: no error for that
    _session().check(Side.CAESAR, "move Genua -> Roma: Legio 8\nmove Genua -> Ravenna: Legio 12")
    errs = _errors("move Genua -> Roma: Legio 8\nmove Genua -> Romaa: Legio 12")
    assert len(errs) == 1 and "Move Points" not in errs[0]
