"""The player's side of issue 13: the log, the end of the game, the demo folder, suggestions, plan lines."""

from __future__ import annotations

from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.scenario import build_game
from pbem.games.caesar.steps.session import Session


def _attack_tarraco() -> tuple[Session, list[object]]:
    s = Session(build_game({
        "blocks": {"Caesar": {"Narbo": ["Legio 7", "Legio 9"], "Massilia": ["Legio 11"]},
                   "Pompey": {"Tarraco": ["Legio 5"], "Carthago Nova": ["Legio 2"], "Bilbilis": ["Legio 3"]}},
        "command": {"cards": {"Caesar": "3/2", "Pompey": "2/1"}},
    }))  # fmt: skip
    events = list(s.submit(Side.CAESAR, "move Narbo -> Tarraco: Legio 7, Legio 9\n"))
    return s, events


def test_the_log_says_who_attacks_once_after_the_move_that_causes_it() -> None:
    _, events = _attack_tarraco()
    texts = [e.text for e in events]  # type: ignore[attr-defined]
    says = [i for i, t in enumerate(texts) if "attacks Tarraco" in t]
    assert len(says) == 1, texts
    first_move = next(i for i, e in enumerate(events) if e.kind == "move" and e.data["path"][-1] == "Tarraco")  # type: ignore[attr-defined]
    assert first_move < says[0], texts
    s, events = _attack_tarraco()
    from pbem.games.caesar.view.views import build_view
    from report_helpers import render_text

    for viewer in Side:
        report = render_text(build_view(s.game, events, viewer))
        assert report.count("attacks Tarraco") == 1, report
        move = "Legio 7, Legio 9: Narbo -> Tarraco" if viewer is Side.CAESAR else "Caesar: 2 blocks move Narbo -> Tarraco"
        assert report.index(move) < report.index("Caesar attacks Tarraco"), report


VICTORY = {
    "phase": "winter", "year": 706,
    "blocks": {"Caesar": {"Roma": ["L11"], "Massilia": ["L7"], "Tarraco": ["L8"], "Carthago Nova": ["L9"], "Utica": ["L10"],
                          "Syracuse": ["L12"], "Athena": ["L13"], "Byzantium": ["L14"], "Ephesus": ["L16"]},
               "Pompey": {"Antiochia": ["L34"], "Alexandria": ["L35"]}},
}  # fmt: skip


def test_the_end_of_the_game_names_the_winner_how_and_the_score(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from pbem.cli import main
    from pbem.games.caesar.view.views import build_view
    from pbem.store import Home
    from report_helpers import render_text
    from store_helpers import make_game

    g = build_game(VICTORY)
    vp = {s: g.vp(s) for s in Side}
    assert vp[Side.CAESAR] >= 10
    said = f"Caesar wins: {vp[Side.CAESAR]} VP, 10 or more, at the end of 706; score Caesar {vp[Side.CAESAR]} VP, Pompey {vp[Side.POMPEY]} VP"
    assert any(e.kind == "game-over" and e.text == f"Game over: {said}" for e in g.events)  # the log
    for viewer in (Side.CAESAR, Side.POMPEY, None):
        assert f"GAME OVER: {said}" in render_text(build_view(g, list(g.events), viewer))  # the final report
    make_game(tmp_path, "won", scenario=g.to_json())
    with Home(tmp_path).open("won") as st:
        assert st.status().result == said
    out = CliRunner().invoke(main, ["--home", str(tmp_path), "status"]).output
    assert said in out, out
    out = CliRunner().invoke(main, ["--home", str(tmp_path), "games"]).output
    assert f"over: {said}" in out, out


def test_a_draw_and_a_win_on_points_after_the_last_year() -> None:
    from pbem.games.caesar.rules.winter import result_text

    # Cleopatra holds Alexandria (2 VP) for Pompey
    g = build_game(dict(VICTORY, year=709, blocks={"Caesar": {"Massilia": ["L7"], "Athena": ["L8"], "Syracuse": ["L9"]},
                                                   "Pompey": {"Utica": ["L34"]}}))
    assert g.state.result is not None
    assert result_text(g.state.result) == "a draw: VP tied at 3 after 709, and nobody holds Roma; score Caesar 3 VP, Pompey 3 VP"
    g = build_game(dict(VICTORY, year=709, blocks={"Caesar": {"Massilia": ["L7"]}, "Pompey": {"Utica": ["L34"]}}))
    assert g.state.result is not None
    assert result_text(g.state.result) == "Pompey wins: more VP after the last Year (709); score Caesar 1 VP, Pompey 3 VP"


def test_demo_without_a_home_uses_a_fresh_temporary_folder_and_says_where(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import json
    import re
    import shutil
    import tempfile
    from pathlib import Path

    from click.testing import CliRunner

    from pbem.cli import main

    monkeypatch.delenv("PBEM_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    r = CliRunner().invoke(main, ["demo"])
    assert r.exit_code == 0, r.output
    m = re.match(r"the demo plays in a fresh temporary folder: (\S+) \(choose one with --home DIR\)", r.output)
    assert m, r.output
    home = Path(m.group(1))
    assert home.parent == tmp_path / "tmp" and (home / "caesar-demo-reports").is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tmp"]  # nothing written into the current folder
    r = CliRunner().invoke(main, ["demo", "--json"])
    data = json.loads(r.output)
    assert data["temporary"] is True and Path(data["home"]) != home
    given = tmp_path / "mine"
    r = CliRunner().invoke(main, ["demo", "--demo-home", str(given)])
    assert r.exit_code == 0 and "temporary" not in r.output and (given / "caesar-demo-reports").is_dir()
    shutil.rmtree(tmp_path / "tmp")


def test_a_plan_line_not_carried_out_for_one_block_is_named_in_the_report() -> None:
    # a shore battle at Massilia: Caesar's retreat plan sends "all" to Narbo by road, which his Navis cannot take
    s = Session(build_game({
        "seed": 0,
        "blocks": {"Caesar": {"Massilia": ["Legio 11 I", "Navis 1 I"], "Narbo": ["Legio 7"], "Mare Hispanum": ["Navis 2"]},
                   "Pompey": {"Genua": ["Legio 1 I", "Legio 2 I"]}},
        "command": {"cards": {"Caesar": "2/1", "Pompey": "3/2"}},
    }))  # fmt: skip
    s.submit(Side.POMPEY, "move Genua -> Massilia: Legio 1, Legio 2\n")
    s.submit(Side.CAESAR, "pass\n")
    events = s.submit(Side.CAESAR, "battle Massilia: retreat round 2 all -> Narbo\n")
    events += s.submit(Side.POMPEY, "pass\n")
    said = [e for e in events if e.kind == "default" and e.data.get("default") == "plan-not-done"]
    assert said, [e.text for e in events]
    assert said[0].audience == "Caesar"
    assert "the plan line 'battle Massilia: retreat round 2 all -> Narbo' is not carried out for Navis 1" in said[0].text
    assert "it cannot retreat to Narbo (it could retreat to Mare Hispanum)" in said[0].text
    assert len(said) == len({e.text for e in said})  # once, not every round
