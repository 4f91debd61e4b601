"""'Since your last report': a player's report opens with what changed since the last one he was sent."""

from __future__ import annotations

from conftest import play_random
from pbem.core.rng import Rng
from pbem.games.caesar.rules.board import Side
from pbem.games.caesar.rules.game import new_game
from pbem.games.caesar.view.views import build_view
from report_helpers import render_html, render_text


def _vp_changed_after_moves(seed: int):  # type: ignore[no-untyped-def]
    """A game played until a side's VP changed in a command phase: the position before, after, and the log."""
    g = new_game(seed)
    log = play_random(g, Rng(seed), log=list(g.events), until=lambda g, log: any(e.kind == "move" for e in log))
    before, since = g.copy(), len(log)
    vp0 = {s: g.vp(s) for s in Side}
    play_random(g, Rng(seed + 1), log=log, until=lambda g, log: {s: g.vp(s) for s in Side} != vp0
                and any(e.kind == "move" for e in log[since:]))
    return before, g, log, since


def _since(text: str) -> list[str]:
    """The lines of the report's "since" section."""
    head, rest = text.split("\nSINCE YOUR LAST REPORT\n", 1)
    assert "CARDS" not in head and "MAP (" in rest  # before the full picture
    return [line.strip() for line in rest.split("\n\n", 1)[0].splitlines()]


def test_a_report_opens_with_the_moves_battles_cards_and_vp_since_the_last_one() -> None:
    before, g, log, since = _vp_changed_after_moves(11)
    for viewer in Side:
        v = build_view(g, log, viewer, since=since, previous=before)
        assert v.changes is not None
        lines = _since(render_text(v))
        was, now = build_view(before, log[:since], viewer), build_view(g, log, viewer)
        vp = ", ".join(f"{a.side} {a.vp} -> {b.vp}" if a.vp != b.vp else f"{a.side} {a.vp} (no change)"
                       for a, b in zip(was.scores, now.scores))
        assert lines[-1] == f"Victory points: {vp}"
        assert "->" in lines[-1]
        recent = log[since:]
        seen_moves = [e for e in recent if e.kind in ("move", "sea-move") and e.visible_to(viewer.value)]
        if seen_moves:
            moves = next(c for c in lines if c.startswith("Moves seen: "))
            for side in Side:
                n = sum(1 for e in seen_moves if e.data["side"] == side.value)
                who = "you" if side is viewer else side.value
                assert (f"{who} {n} (to " in moves) == (n > 0)
            for e in seen_moves:  # every destination seen is named
                assert str(e.data["path"][-1]) in moves
        joined = "\n".join(lines)
        for e in recent:
            if e.kind == "battle-end":
                assert f"{e.data['loc']} (won by {e.data['victor']})" in joined
            if e.kind == "reveal":
                assert e.text in joined
        assert "<h2>Since your last report</h2>" in render_html(v)


def test_first_report_and_moderator_have_no_since_section() -> None:
    before, g, log, since = _vp_changed_after_moves(5)
    assert build_view(g, log, Side.CAESAR, since=since).changes is None  # no previous report
    assert "SINCE YOUR LAST REPORT" not in render_text(build_view(g, log, Side.CAESAR, since=since))
    assert build_view(g, log, None, since=since, previous=before).changes is None


def test_the_since_section_holds_nothing_hidden() -> None:
    """An enemy move shows where it went and how many, never which block moved."""
    before, g, log, since = _vp_changed_after_moves(11)
    for viewer in Side:
        text = "\n".join(_since(render_text(build_view(g, log, viewer, since=since, previous=before))))
        for bid in g.state.blocks:
            info = g.board.blocks[bid]
            if info.side is viewer.enemy and bid != "Cleopatra" and info.name not in ("Caesar", "Pompey"):
                assert info.name not in text
