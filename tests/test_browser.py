"""The HTML report in a real browser: headless Chromium draws the map and parses the page.

A seeded random game is played to its second battle; Caesar's report and the
moderator's are rendered with the game's report context and the core's templates (tests/report_helpers.py), written to
``tmp_path`` and loaded with a ``file://`` URL (no network) in Chromium:

* at phone widths (360, 390 and 420 px) the page never scrolls sideways (only the map does), no
  table is wider than the page, and no badge (Cleopatra's, a side's, a card) is cut, even with the
  most crowded row of the location table;
* a screenshot at phone width (420 px) is decoded with the standard library
  (``tests/pngcheck.py``) and must show the map: its sea, many colours, and the
  Caesar, Pompey and Cleopatra colours inside the map;
* the DOM Chromium built (``--dump-dom``) must hold the SVG map with a group per
  location, the viewer's blocks (``block own``), blank enemy blocks
  (``block enemy hidden``), the title and the "What to send next" section;
  the moderator's must show every block on the map, of both sides.

Chromium comes from Debian's ``chromium`` package, which ``.ci/run`` installs. When it is missing
the test fails saying how to install it (it never installs anything itself);
``PBEM_SKIP_BROWSER=1`` skips these tests instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

import report_helpers as reports
from conftest import play_random
from pbem.core.events import Event
from pbem.core.rng import Rng
from pbem.games.caesar.rules.board import Side, default_board
from pbem.games.caesar.rules.game import Game, new_game
from pbem.games.caesar.view import views
from pbem.games.caesar.view.svgmap import COLOURS, MAX_SHOWN, location_id

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
from pngcheck import Image, read_png  # noqa: E402

BOARD = default_board()
ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV"}
SEED = 3
VIEWER = Side.CAESAR
STEP = views.NextStep(9, "battles", None, ("Caesar",), (("Plan", "battle Tarraco: retreat round 2 all -> Ilerda"),))

CHROMIUM_TIMEOUT = 90  # seconds per browser run (about 1-2 s normally)
INSTALL_HINT = (
    "Chromium is needed for tests/test_browser.py. Install it with "
    "`sudo apt-get update && sudo apt-get install -y chromium` (Debian/Ubuntu; it gives /usr/bin/chromium), "
    "or set PBEM_SKIP_BROWSER=1 to skip the browser tests."
)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

SEA = (0xDC, 0xEB, 0xF5)  # pbem.games.caesar.view.svgmap.SEA_BG
TAN, GREEN, BLUE = (tuple(int(COLOURS[c][0][i: i + 2], 16) for i in (1, 3, 5)) for c in ("caesar", "pompey", "cleopatra"))
MAP_W, MAP_H = 2500, 1250  # the SVG's viewBox
LEGEND = (14, 14, 466, 404)  # the legend's box in the viewBox (x0, y0, x1, y1)


# ---- Chromium --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def chromium() -> str:
    if os.environ.get("PBEM_SKIP_BROWSER") == "1":
        pytest.skip("PBEM_SKIP_BROWSER=1")
    found = shutil.which("chromium")  # .ci/run installs it; a test never installs anything
    if found is None:
        pytest.fail(INSTALL_HINT)
    return found


def run_chromium(exe: str, page: Path, work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """One headless run on ``page`` (a ``file://`` URL), with a fresh profile under ``work``."""
    profile = work / f"profile-{len(list(work.glob('profile-*')))}"
    profile.mkdir(parents=True)
    cmd = [exe, *FLAGS, f"--user-data-dir={profile}", *args, page.resolve().as_uri()]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=CHROMIUM_TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"Chromium did not finish within {CHROMIUM_TIMEOUT} s: {' '.join(cmd)}")
    assert done.returncode == 0, f"Chromium failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr[-3000:]}"
    return done


# ---- the game and its reports ---------------------------------------------------------------


@dataclass
class Reports:
    game: Game
    log: list[Event]
    player: views.View
    moderator: views.View
    player_html: Path
    moderator_html: Path


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Reports:
    """Seed 3 played at random until its second battle has ended."""
    g = new_game(SEED)
    log = play_random(g, Rng(SEED * 31 + 5), log=list(g.events),
                      until=lambda g, log: sum(e.kind == "battle-end" for e in log) >= 2)
    assert sum(e.kind == "battle-end" for e in log) == 2
    since = max(i for i, e in enumerate(log) if e.kind == "battle") - 1  # the last battle is news
    player = views.build_view(g, log, VIEWER, since=since, next_step=STEP)
    moderator = views.build_view(g, log, None, since=since, next_step=STEP)
    out = tmp_path_factory.mktemp("reports")
    paths = []
    for name, view in (("caesar", player), ("moderator", moderator)):
        path = out / f"report-{name}.html"
        path.write_text(reports.render_html(view), encoding="utf-8")
        paths.append(path)
    return Reports(g, log, player, moderator, *paths)


# ---- the DOM -----------------------------------------------------------------------------


@dataclass
class Block:
    location: str  # the group's id: "loc-Roma"
    classes: str
    text: list[str] = field(default_factory=list)


class DomReader(HTMLParser):
    """What the tests look for in a dumped DOM: the map's groups and blocks, headings and text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.svg_open = 0
        self.svgs = 0
        self.locations: list[str] = []  # ids of loc-* groups inside an <svg>
        self.blocks: list[Block] = []
        self.more: Counter[str] = Counter()  # "+N" badges per location
        self.title = ""
        self.h1 = ""
        self.h2: list[str] = []
        self.text: list[str] = []  # every text node outside the SVG
        self._groups: list[dict[str, str]] = []  # open <g> elements' attributes
        self._tag = ""

    def _in(self, cls: str) -> dict[str, str] | None:
        return next((g for g in reversed(self._groups) if cls in g.get("class", "").split()), None)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self._tag = tag
        if tag == "svg":
            self.svg_open += 1
            self.svgs += 1
        elif tag == "g":
            self._groups.append(a)
            cls = a.get("class", "").split()
            loc = self._in("location")
            if "location" in cls and self.svg_open:
                self.locations.append(a.get("id", ""))
            elif "block" in cls and loc is not None:
                self.blocks.append(Block(loc.get("id", ""), a["class"]))

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self.svg_open -= 1
        elif tag == "g":
            self._groups.pop()
        self._tag = ""

    def handle_data(self, data: str) -> None:
        text = data.strip()
        if not text:
            return
        if self.svg_open:
            block, badge, loc = self._in("block"), self._in("more"), self._in("location")
            if block is not None and self._tag == "text":
                self.blocks[-1].text.append(text)
            elif badge is not None and loc is not None and self._tag == "text":
                self.more[loc["id"]] += int(text.lstrip("+"))
            return
        if self._tag == "title" and not self.title:
            self.title = text
        elif self._tag == "h1":
            self.h1 += text
        elif self._tag == "h2":
            self.h2.append(text)
        self.text.append(text)


def dump_dom(exe: str, page: Path, work: Path) -> tuple[str, DomReader]:
    dom = run_chromium(exe, page, work, "--dump-dom").stdout
    head = dom.lstrip()[:200].lower()
    assert head.startswith(("<!doctype html>", "<html")) and dom.rstrip().endswith("</html>"), dom[:500]
    reader = DomReader()
    reader.feed(dom)
    reader.close()
    return dom, reader


def check_map_groups(reader: DomReader, view: views.View) -> None:
    """A group per board space inside the one <svg>; per location the blocks drawn and the "+N" badge."""
    assert reader.svgs == 1 and reader.svg_open == 0
    assert sorted(reader.locations) == sorted(location_id(n) for n in BOARD.spaces)
    pieces = reports.map_pieces(view)
    drawn = Counter(b.location for b in reader.blocks)
    for name in BOARD.spaces:
        n = len(pieces.get(name, ()))
        shown = n if n <= MAX_SHOWN else MAX_SHOWN - 1
        assert (drawn[location_id(name)], reader.more[location_id(name)]) == (shown, n - shown), name


def test_the_browser_parses_the_player_report(played: Reports, chromium: str, tmp_path: Path) -> None:
    dom, r = dump_dom(chromium, played.player_html, tmp_path)
    source = played.player_html.read_text(encoding="utf-8")
    # the browser's own serialisation, not the file echoed: ElementTree wrote <rect ... />
    assert "</rect>" in dom and "</rect>" not in source
    assert "<svg" in dom and 'class="pbem-map"' in dom and 'id="loc-Roma"' in dom
    check_map_groups(r, played.player)

    v = played.player
    assert r.title == f"Julius Caesar: {v.viewer}, {v.year} turn {v.turn}"
    assert r.h1 == f"Julius Caesar: report for {v.viewer}"
    assert {"Cards", "What happened", "Map", "Last seen", "What to send next"} <= set(r.h2)
    assert r.h2[-1] == "What to send next"
    after = r.text[r.text.index("What to send next"):]
    assert "Step 9: battles" in after and "battle Tarraco: retreat round 2 all -> Ilerda" in after
    assert any(t.startswith("Battle of ") for t in r.text) and "Round 1" in r.text

    own = [b for b in r.blocks if b.classes.startswith("block own")]
    hidden = [b for b in r.blocks if b.classes.startswith("block enemy hidden")]
    assert 'class="block own caesar"' in dom and 'class="block enemy hidden pompey"' in dom
    assert len(own) >= 5 and len(hidden) >= 5
    assert all(b.classes == "block own caesar" and b.text for b in own if "cleopatra" not in b.classes)
    assert all(b.classes == "block enemy hidden pompey" and not b.text for b in hidden)  # blank: nothing written
    labels = {(location_id(loc), p.label) for loc, ps in reports.map_pieces(v).items() for p in ps if not p.hidden}
    for b in r.blocks:
        if b.text:
            assert (b.location, " ".join(b.text)) in labels, b


def test_the_browser_shows_every_block_to_the_moderator(played: Reports, chromium: str, tmp_path: Path) -> None:
    dom, r = dump_dom(chromium, played.moderator_html, tmp_path)
    check_map_groups(r, played.moderator)
    assert r.title.startswith("Julius Caesar: moderator,") and r.h1 == "Julius Caesar: moderator's report"
    assert "What to send next" in r.h2
    # no fog for the moderator: no own/enemy, nothing hidden, both colours drawn
    assert all(set(b.classes.split()) <= {"block", "caesar", "pompey", "cleopatra"} for b in r.blocks)
    assert {"caesar", "pompey"} <= {c for b in r.blocks for c in b.classes.split()}
    on_map = played.game.state.on_map()
    assert len(r.blocks) + sum(r.more.values()) == len(on_map)
    # every block on the map is named in the page, whatever its side
    text = set(r.text)
    sides = set()
    for bid in on_map:
        b = played.game.state.blocks[bid]
        info = BOARD.blocks[bid]
        name = info.name if info.side is b.side else f"{info.side.value} {info.name}"
        assert f"{name} {ROMAN[b.strength]}" in text, bid
        sides.add(b.side)
    assert sides == {Side.CAESAR, Side.POMPEY}


# ---- the screenshot ---------------------------------------------------------------------------


def near(c: tuple[int, int, int], want: tuple[int, ...], tol: int = 8) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(c, want))


def map_box(img: Image) -> tuple[int, int, int, int]:
    """The map's visible part: the box of the sea's pixels (x0, y0, x1, y1; ends excluded)."""
    xs: list[int] = []
    ys: list[int] = []
    for y in range(img.height):
        row = img.row_rgb(y)
        hits = [x for x, c in enumerate(row) if c == SEA]
        if len(hits) > 20:
            xs += (hits[0], hits[-1])
            ys.append(y)
    assert ys, "no sea-coloured pixels: the map is not in the screenshot"
    return min(xs), min(ys), max(xs) + 1, max(ys) + 1


def test_phone_screenshot_shows_the_map(played: Reports, chromium: str, tmp_path: Path) -> None:
    png = tmp_path / "caesar-phone.png"
    run_chromium(chromium, played.player_html, tmp_path, f"--screenshot={png}", "--window-size=420,2400")
    assert png.is_file() and png.stat().st_size > 10_000
    img = read_png(png)
    assert (img.width, img.height) == (420, 2400)
    everywhere = img.colours()
    assert len(everywhere) > 500, f"only {len(everywhere)} colours: a blank page?"
    white = sum(n for c, n in everywhere.items() if min(c) >= 250)
    assert white < 0.9 * img.width * img.height

    x0, y0, x1, y1 = map_box(img)
    scale = (y1 - y0) / MAP_H  # the whole height shows; a phone scrolls sideways
    assert y1 - y0 > 300 and 0.25 < scale < 0.6, (x0, y0, x1, y1)
    assert x1 - x0 < MAP_W * scale, "at phone width the map should scroll sideways"
    inside = img.colours((x0, y0, x1, y1))
    assert inside[SEA] > 0.3 * (x1 - x0) * (y1 - y0)

    lx0, ly0, lx1, ly1 = (round(v * scale) + d for v, d in zip(LEGEND, (-3, -3, 3, 3)))
    legend = img.colours((x0 + lx0, y0 + ly0, x0 + lx1, y0 + ly1))
    out_of_legend = inside - legend

    def count(colours: Counter[tuple[int, int, int]], want: tuple[int, ...]) -> int:
        return sum(n for c, n in colours.items() if near(c, want))

    # the legend's samples, and on the map itself Caesar's labelled blocks, Pompey's blank ones, blue port rings
    for want, name in ((TAN, "Caesar tan"), (GREEN, "Pompey green"), (BLUE, "Cleopatra blue")):
        assert count(legend, want) > 30, f"{name} missing from the legend"
    assert count(out_of_legend, TAN) > 300, "no Caesar block drawn on the map"
    assert count(out_of_legend, GREEN) > 300, "no Pompey block drawn on the map"
    assert count(out_of_legend, BLUE) > 20, "no port ring drawn on the map"


# ---- phone width: nothing cut, nothing scrolls but the map --------------------------------

MEASURE = """<script>
(function () {
  var out = {page: document.documentElement.scrollWidth, view: window.innerWidth, tables: [], cut: []};
  document.querySelectorAll("table").forEach(function (t) {
    out.tables.push([t.scrollWidth, t.parentElement.clientWidth]);
  });
  document.querySelectorAll(".side, .die, .cards li").forEach(function (b) {
    var r = b.getBoundingClientRect(), box = (b.closest("td, li, p, div") || document.body).getBoundingClientRect();
    if (b.closest("td, p, li, div") === b) { box = b.parentElement.getBoundingClientRect(); }
    if (r.right > box.right + 0.5 || r.left < box.left - 0.5 || r.right > window.innerWidth) {
      out.cut.push(b.textContent.trim());
    }
  });
  parent.document.body.setAttribute("data-measure", JSON.stringify(out));
})();
</script>"""


@pytest.mark.parametrize("width", [360, 390, 420])
def test_phone_width_nothing_cut_nothing_scrolls_but_the_map(played: Reports, chromium: str, tmp_path: Path,
                                                             width: int) -> None:
    import json
    import re

    for page in (played.player_html, played.moderator_html):
        probe = tmp_path / f"probe-{width}-{page.name}"
        html = page.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>")
        # The most crowded row a game gives (a contested city, Jupiter's defectors, Cleopatra), first in the table.
        crowded = ('<tr class="contested"><td class="loc">Carthago Nova<span class="where">1 VP, contested</span></td>'
                   '<td><span class="blk">Pompey Legio 10 III</span>, <span class="blk">Equitatus 2 IV</span></td>'
                   '<td><span class="blk">Caesar Legio 37 III</span>, <span class="side cleopatra">Cleopatra IV</span>'
                   '</td></tr>')
        assert '<table class="locations">' in html
        html = re.sub(r'(<table class="locations">.*?<tbody>)', lambda m, crowded=crowded: m.group(1) + crowded, html, count=1, flags=re.S)
        # Headless Chromium's window is at least 500 px wide: the page goes in a frame of the phone's width
        # (srcdoc: same origin, so the measurement can be written into the outer page).
        from html import escape

        probe.write_text(f'<!DOCTYPE html><html><body style="margin:0"><iframe style="width:{width}px;height:1600px;'
                         f'border:0" srcdoc="{escape(html, quote=True)}"></iframe></body></html>', encoding="utf-8")
        dom = run_chromium(chromium, probe, tmp_path, "--dump-dom", f"--window-size={width},1600").stdout
        found = re.search(r'data-measure="([^"]*)"', dom)
        assert found, "the measuring script did not run"
        m = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
        assert m["view"] == width, m
        assert m["page"] <= m["view"], (page.name, width, m)  # the page itself never scrolls sideways
        for scroll, room in m["tables"]:
            assert scroll <= room, (page.name, width, "a table scrolls sideways", m)
        assert m["cut"] == [], (page.name, width, "badges cut at the edge", m["cut"])
