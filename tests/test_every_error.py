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


def _at_battle_plans() -> Session:
    s = Session(build_game({
        "blocks": {"Caesar": {"Narbo": ["Legio 7", "Legio 9"], "Massilia": ["Legio 11"]},
                   "Pompey": {"Tarraco": ["Legio 5"], "Carthago Nova": ["Legio 2"], "Bilbilis": ["Legio 3"]}},
        "command": {"cards": {"Caesar": "3/2", "Pompey": "2/1"}},
    }))  # fmt: skip
    s.submit(Side.CAESAR, "move Narbo -> Tarraco: Legio 7, Legio 9\n")
    s.submit(Side.POMPEY, "pass\n")
    assert s.step().title.endswith("battle plans for Tarraco")
    return s


def test_plans_that_can_never_work_are_accepted_with_a_warning() -> None:
    s = _at_battle_plans()
    text = ("battle Tarraco: retreat round 2 all -> Carthago Nova\n"
            "battle Tarraco: retreat round 3 all -> Narbo\n"
            "regroup Tarraco: Legio 7 -> Bilbilis\n")
    s.check(Side.CAESAR, text)  # accepted
    warns = s.warnings(Side.CAESAR, text)
    assert [w.lineno for w in warns] == [1, 3]
    assert "Carthago Nova is held by Pompey, so this retreat can never be carried out (7.6)" in warns[0].message
    assert "from Tarraco you could retreat to Narbo" in warns[0].message
    assert "Bilbilis is held by Pompey, so this regroup can never be carried out (7.7)" in warns[1].message
    assert s.warnings(Side.CAESAR, "battle Tarraco: retreat all -> Narbo\n") == []
    from pbem.core.phrase import say
    from pbem.locale import translations

    assert say(warns[0].message, translations("es")).startswith(  # a Spanish player reads it in Spanish
        "aviso: Carthago Nova está en poder de Pompeyo, así que esta retirada nunca podrá hacerse (7.6); desde Tarraco")


def test_warnings_reach_the_reply_and_the_receipt() -> None:
    from pbem.decide import Outcome, Verdict
    from pbem.receipts import describe_receipt
    from pbem.replies import reply_text
    from pbem.store import Receipt

    warning = {"line": 1, "text": "battle Tarraco: retreat all -> Carthago Nova",
               "message": "warning: Carthago Nova is held by Pompey, so this retreat can never be carried out (7.6)",
               "warning": True}
    body = reply_text("g1", 9, 4, Outcome(Verdict.ACCEPTED, side="Caesar", step=9, errors=[warning]))
    assert "were received" in body and "line 1: battle Tarraco" in body and "can never be carried out" in body
    lines = describe_receipt(Receipt(game="g1", submission=4, verdict=Verdict.ACCEPTED, side="Caesar", step=9,
                                     errors=(warning,), waiting_for=("Pompey",)))
    assert any("can never be carried out" in ln for ln in lines)


def test_did_you_mean_offers_the_blocks_that_can_do_what_the_line_asks_first() -> None:
    (err,) = _errors("move Genua -> Roma: Legio 15")
    # the blocks in Genua that can move come first, not the nearest spellings (Legio 16, 13, 14)
    assert "unknown Caesar block 'Legio 15'; did you mean 'Legio 12' or 'Legio 8'" in err, err
    (err,) = _errors("move Massilia -> Genua: Legio 15")
    assert "did you mean 'Legio 11'" in err, err
    (err,) = _errors("move Genua -> Roma: Legio 8, Legio 99")
    assert "did you mean 'Legio 8' or 'Legio 12'" in err, err


def test_suggestions_never_depend_on_hidden_enemy_blocks() -> None:
    texts = []
    for pompey in ({"Roma": ["Legio 1", "Legio 35 I"]}, {"Roma": ["Pompey", "Auxilia 2"]}):
        s = Session(build_game({
            "blocks": {"Caesar": {"Genua": ["Legio 8", "Legio 12"], "Massilia": ["Legio 11"]}, "Pompey": pompey},
            "command": {"cards": {"Caesar": "1/2", "Pompey": "1/3"}},
        }))  # fmt: skip
        with pytest.raises(SubmissionRejected) as info:
            s.check(Side.CAESAR, "move Genua -> Roma: Legio 15\nlevy Legio 155 at Genua\nmove Genua -> Romaa: Pompey Legio 5\n")
        texts.append(str(info.value))
    assert texts[0] == texts[1]


def test_a_warned_plan_is_accepted_and_the_receipt_says_why(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pbem.receipts import describe_receipt
    from pbem.store import Home
    from store_helpers import make_game, signed

    g = build_game({
        "blocks": {"Caesar": {"Narbo": ["Legio 7", "Legio 9"], "Massilia": ["Legio 11"]},
                   "Pompey": {"Tarraco": ["Legio 5"], "Carthago Nova": ["Legio 2"], "Bilbilis": ["Legio 3"]}},
        "command": {"cards": {"Caesar": "3/2", "Pompey": "2/1"}},
    })  # fmt: skip
    keys = make_game(tmp_path, "w", scenario=g.to_json())
    with Home(tmp_path).open("w") as st:
        assert st.receive(signed(keys, Side.CAESAR, 1, "move Narbo -> Tarraco: Legio 7, Legio 9\n", game="w")).resolved
        assert st.receive(signed(keys, Side.POMPEY, 2, "pass\n", game="w")).resolved
        r = st.receive(signed(keys, Side.CAESAR, 3, "battle Tarraco: retreat round 2 all -> Carthago Nova\n", game="w"))
        assert r.verdict.value == "accepted"
        text = "\n".join(describe_receipt(r))
        assert "line 1: battle Tarraco: retreat round 2 all -> Carthago Nova" in text
        assert "Carthago Nova is held by Pompey, so this retreat can never be carried out" in text
        r = st.receive(signed(keys, Side.POMPEY, 3, "pass\n", game="w"))
        assert r.verdict.value == "accepted" and not r.errors and r.resolved
