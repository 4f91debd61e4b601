"""Rendered reports: nothing hidden leaks, the moderator sees all, the same view gives the same bytes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest

import report_helpers as reports
from conftest import play_random
from pbem import render as core_render
from pbem.core.events import Event
from pbem.core.rng import Rng
from pbem.games.caesar.rules.board import Side, default_board, short_name
from pbem.games.caesar.rules.game import Game, new_game
from pbem.games.caesar.rules.playout import random_decisions
from pbem.games.caesar.rules.state import BlockStatus
from pbem.games.caesar.view import render as caesar_render
from pbem.games.caesar.view import views

BOARD = default_board()
ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV"}


# ---- the leak checker ----------------------------------------------------------------
#
# Written without the view code: which enemy blocks a side has seen is worked out
# here from the event data, and the names looked for come from the board.


def revealed_to(side: Side, log: list[Event]) -> set[str]:
    """Block ids named in the data of any event ``side`` may see (battle reveals, fire, hits, eliminations...)."""
    out: set[str] = set()
    for e in log:
        if not e.visible_to(side.value if side is not None else None):
            continue
        if isinstance(e.data.get("block"), str):
            out.add(e.data["block"])
        for r in e.data.get("revealed", ()) or ():
            out.add(r["block"])
    return out


def name_forms(bid: str) -> list[str]:
    """How a report could name a block: ``Legio 37`` and ``L37``."""
    info = BOARD.blocks[bid]
    return sorted({info.name, short_name(info)})


def names_regex(bids: list[str]) -> tuple[re.Pattern[str], dict[str, str]]:
    """One pattern for every name of ``bids``, as whole words (``Legio 3`` does not match ``Legio 37``)."""
    owner = {form: bid for bid in bids for form in name_forms(bid)}
    alternatives = "|".join(re.escape(f) for f in sorted(owner, key=lambda f: (-len(f), f)))
    return re.compile(r"(?<![\w])(?:" + (alternatives or "(?!)") + r")(?![\w])"), owner


def checkable(bid: str, viewer: Side) -> bool:
    """Names that may legitimately appear for other reasons are not checked.

    The viewer's own side may have a block of the same name (both have
    ``Navis 1``); the leaders Caesar and Pompey share their side's name;
    Cleopatra's blue block is always visible.
    """
    info = BOARD.blocks[bid]
    if bid == "Cleopatra" or info.name in (s.value for s in Side):
        return False
    own_names = {b.name for b in BOARD.blocks.values() if b.side is viewer}
    return info.side is not viewer and info.name not in own_names


@dataclass
class Leaks:
    found: list[str] = field(default_factory=list)
    checked: int = 0  # hidden enemy blocks looked for
    shown: int = 0  # revealed enemy blocks the text report does name (the check can see names)


def enemies_on_map(g: Game, viewer: Side, log: list[Event]) -> tuple[list[str], list[str]]:
    """Checkable enemy blocks on the map: (never revealed to ``viewer``, revealed)."""
    seen = revealed_to(viewer, log)
    enemy = [
        bid
        for bid, b in sorted(g.state.blocks.items())
        if b.status is BlockStatus.MAP and b.side is not viewer and checkable(bid, viewer)
    ]
    return [b for b in enemy if b not in seen], [b for b in enemy if b in seen]


def map_section(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("MAP ("))
    out = []
    for ln in lines[start + 1:]:
        if ln == "" or ln.isupper():
            break
        out.append(ln)
    return out


ENEMY_ENTRY = re.compile(r"^(\d+ (block|blocks|Navis))?(, )?(Cleopatra)?$")


def check_report(g: Game, log: list[Event], viewer: Side, docs: dict[str, str], leaks: Leaks) -> None:
    """Look for hidden enemy names in each rendered document, and for enemy strengths in the text map."""
    hidden, revealed = enemies_on_map(g, viewer, log)
    leaks.checked += len(hidden)
    pattern, owner = names_regex(hidden)
    for what, doc in docs.items():
        for m in pattern.finditer(doc):
            leaks.found.append(f"{viewer} {what}: hidden enemy {owner[m.group(0)]} named as {m.group(0)!r}")
    if "text" in docs and revealed:
        pattern, _ = names_regex(revealed)
        leaks.shown += bool(pattern.search(docs["text"]))
    if "text" in docs:
        for ln in map_section(docs["text"]):
            m = re.match(r"^  (Caesar|Pompey)( \(you\))?: (.*)$", ln)
            if m and m.group(1) == viewer.enemy.value and not ENEMY_ENTRY.match(m.group(3)):
                leaks.found.append(f"{viewer} text map shows more than a count: {ln!r}")


def report_docs(g: Game, log: list[Event], viewer: Side, since: int, *, html: bool) -> dict[str, str]:
    # through the module attribute, so a test can swap the view builder
    view = views.build_view(g, log, viewer, since=since, next_step=views.NextStep(7, "next", None, (viewer.value,)))
    docs = {"text": reports.render_text(view), "repr": repr(view)}
    pieces = reports.map_pieces(view)
    docs["pieces"] = repr(pieces)
    if html:
        docs["html"] = reports.render_html(view)
    return docs


def run_leak_check(seeds: range, *, every: int, html_points: int) -> Leaks:
    """Random games; at every ``every``-th decision each side's report is checked.

    The HTML (with its SVG map, the slow part) is rendered at ``html_points``
    of those points per game, chosen where a battle is on when there is one.
    """
    leaks = Leaks()
    for seed in seeds:
        g = new_game(seed)
        since = {s: 0 for s in Side}
        html_left = [html_points]

        def check(g: Game, log: list[Event], n: int, since: dict[Side, int] = since,
                  html_left: list[int] = html_left) -> None:
            in_battle = g.state.battle is not None
            if n % every and not (in_battle and n % 3 == 0):
                return
            with_html = html_left[0] > 0 and (in_battle or n % (every * 8) == 0)
            html_left[0] -= with_html
            for side in Side:
                check_report(g, log, side, report_docs(g, log, side, since[side], html=with_html), leaks)
                since[side] = len(log)

        play_random(g, Rng(seed * 31 + 5), log=list(g.events), each=check)
    return leaks


def test_reports_never_name_a_hidden_enemy_block() -> None:
    leaks = run_leak_check(range(100, 118), every=9, html_points=3)
    assert leaks.checked > 5000  # the check looked at many hidden blocks
    assert leaks.shown > 50  # and revealed enemy blocks are named (last seen, battles)
    assert leaks.found == []


def test_the_leak_check_catches_a_report_that_shows_the_full_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Feed players the moderator's view: the same checker must cry out."""
    honest = views.build_view

    def full_state(game, log, viewer, **kw):  # type: ignore[no-untyped-def]
        return honest(game, log, None, **kw)

    monkeypatch.setattr(views, "build_view", full_state)
    leaks = run_leak_check(range(100, 101), every=40, html_points=1)
    assert leaks.found
    assert any(" html: " in f for f in leaks.found) and any(" text: " in f for f in leaks.found)
    assert any("more than a count" in f for f in leaks.found)


def test_the_leak_check_catches_an_enemy_name_in_the_svg_map(monkeypatch: pytest.MonkeyPatch) -> None:
    """A map drawn with the moderator's pieces is caught in the HTML alone."""
    game, log = _play(100, 30)
    honest = reports.map_pieces
    everything = views.build_view(game, log, None)
    monkeypatch.setattr(caesar_render, "map_pieces", lambda view: honest(everything))
    leaks = Leaks()
    check_report(game, log, Side.CAESAR, {"html": reports.render_html(views.build_view(game, log, Side.CAESAR))}, leaks)
    assert leaks.found and all(" html: " in f for f in leaks.found)


# ---- reports -------------------------------------------------------------------------


def _play(seed: int, decisions: int) -> tuple[Game, list[Event]]:
    g = new_game(seed)
    log = list(g.events) + random_decisions(g, Rng(seed * 31 + 5), decisions)
    return g, log


def _play_to_battle(seed: int) -> tuple[Game, list[Event]]:
    g = new_game(seed)
    log = play_random(g, Rng(seed * 31 + 5), log=list(g.events),
                      until=lambda g, log: any(e.kind == "battle-end" for e in log))
    return g, log


def test_same_game_same_bytes() -> None:
    step = views.NextStep(4, "command, Player 1", "2030-01-01 12:00 UTC", ("Pompey",), (("Moves", "move A -> B: Legio 1"),))
    outs = []
    for _ in range(2):
        g, log = _play(42, 90)
        for viewer in (Side.CAESAR, Side.POMPEY, None):
            v = views.build_view(g, log, viewer, since=len(log) // 2, next_step=step)
            outs.append((reports.render_text(v), reports.render_html(v)))
    assert outs[:3] == outs[3:]
    v = views.build_view(g, log, Side.CAESAR, next_step=step)
    assert reports.render_text(v) == reports.render_text(v) and reports.render_html(v) == reports.render_html(v)


def test_moderator_report_lists_every_block() -> None:
    g, log = _play(43, 160)
    text = reports.render_text(views.build_view(g, log, None))
    table = "\n".join(map_section(text))
    for bid in g.state.on_map():
        b = g.state.blocks[bid]
        info = BOARD.blocks[bid]
        if bid == "Cleopatra":
            assert f"Cleopatra {ROMAN[b.strength]}" in table
            continue
        name = info.name if info.side is b.side else f"{info.side.value} {info.name}"
        assert re.search(rf"(?<![\w]){re.escape(name)} {ROMAN[b.strength]}(?![\w])", table), bid


def test_text_report_sections_and_no_escaping() -> None:
    g, log = _play_to_battle(3)
    start = max(i for i, e in enumerate(log) if e.kind == "battle") - 1
    step = views.NextStep(9, "battles", None, ("Caesar",), (("Plan", "battle Roma: retreat round 2 all -> Genua <ok>"),))
    text = reports.render_text(views.build_view(g, log, Side.CAESAR, since=start, next_step=step))
    for heading in ("CARDS", "WHAT HAPPENED", "MAP (what Caesar sees)", "LAST SEEN", "WHAT TO SEND NEXT"):
        assert heading in text
    assert "-- Battle of " in text and "Round 1" in text and ": dice " in text
    assert "battle Roma: retreat round 2 all -> Genua <ok>" in text  # text is not HTML-escaped
    assert "&lt;" not in text and "&gt;" not in text


def test_html_report_is_escaped_mobile_friendly_and_has_the_map() -> None:
    g, log = _play_to_battle(3)
    step = views.NextStep(9, "battles <b>", None, ("Caesar",), (("Plan", "battle Roma: <script>x</script>"),))
    html = reports.render_html(views.build_view(g, log, Side.CAESAR, since=0, next_step=step))
    assert html.startswith("<!DOCTYPE html>")
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert "max-width" in html and "<svg" in html and 'class="pbem-map"' in html
    assert "<script>" not in html and "&lt;script&gt;" in html and "battles &lt;b&gt;" in html
    assert 'class="die hit"' in html  # dice shown, hits marked


def test_map_pieces_hide_enemy_identities() -> None:
    g, log = _play(44, 100)
    for viewer in Side:
        v = views.build_view(g, log, viewer)
        pieces = reports.map_pieces(v)
        for loc, ps in pieces.items():
            enemy = [p for p in ps if p.side is viewer.enemy and not p.blue]
            assert len(enemy) == sum(1 for b in g.blocks_at(loc, viewer.enemy) if b != "Cleopatra")
            for p in enemy:
                assert (p.hidden and p.label == "") or (BOARD.is_sea(loc) and p.label == "Navis ?")
            own = [p for p in ps if p.side is viewer and not p.blue]
            assert all(not p.hidden and p.label for p in own)
    mod = reports.map_pieces(views.build_view(g, log, None))
    assert all(not p.hidden for ps in mod.values() for p in ps)
    assert sum(len(ps) for ps in mod.values()) == len(g.state.on_map())


def test_one_environment_strict_and_autoescaping() -> None:
    env = core_render.environment()
    assert env is core_render.environment()
    assert env.autoescape("report.html.j2") and env.autoescape("map.svg") and not env.autoescape("report.txt.j2")
    assert env.trim_blocks and env.lstrip_blocks
    from jinja2 import StrictUndefined, UndefinedError

    assert env.undefined is StrictUndefined
    with pytest.raises(UndefinedError):
        env.from_string("{{ nothing.here }}").render()
    for name in ("base.html.j2", "caesar/report.html.j2", "caesar/report.txt.j2"):
        env.get_template(name)


def test_templates_load_from_the_package_first_then_the_checkout(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from jinja2 import Environment, TemplateNotFound

    (tmp_path / "report.txt.j2").write_text("packaged", encoding="utf-8")
    loader = core_render._PackageLoader(tmp_path)
    env = Environment()
    assert loader.get_source(env, "report.txt.j2")[0] == "packaged"
    for missing in ("nothing.j2", "../report.txt.j2"):
        with pytest.raises(TemplateNotFound):
            loader.get_source(env, missing)
    # from a checkout the repository's templates/ directory is found
    source = core_render.environment().loader.get_source(core_render.environment(), "caesar/report.txt.j2")[0]  # type: ignore[union-attr]
    assert "WHAT TO SEND NEXT" in source
