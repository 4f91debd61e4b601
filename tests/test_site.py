"""`pbem site -o DIR`: the club's public pages, built only from what both sides know, checked in
headless Chromium (tests/test_browser.py's runner) at desktop and phone widths."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import toygame
from pbem.cli import main
from pbem.games import register
from pbem.games.caesar.rules.board import Side
from pbem.site import write_site
from pbem.store import Home
from pngcheck import read_png
from store_helpers import make_game, signed
from test_browser import chromium, run_chromium  # noqa: F401 - chromium is a fixture

register(toygame.SYSTEM)


@pytest.fixture()
def club(tmp_path: Path) -> Path:
    """A toy tournament of four (one game over, one running) and a Julius Caesar game one step in."""
    home = tmp_path / "home"
    run = CliRunner()

    def ok(*args: str) -> str:
        r = run.invoke(main, ["--home", str(home), *args])
        assert r.exit_code == 0, r.output
        return r.output

    ok("tournament", "new", "spring", "--rounds", "2", "--system", "toy", "-o", "rounds=2", "--seed", "4",
       "--deadline", "3d")
    for p in ("Ann", "Bob", "Cid", "Dan"):
        ok("tournament", "add", "spring", "--player", p, "--email", f"{p.lower()}@example.org", "--password", f"{p} pw")
    ok("tournament", "pair", "spring")
    with Home(home).open("spring-r1-1") as st:
        loser = st.players()[0].side
    ok("forfeit", "spring-r1-1", "--side", loser)
    ok("extend", "spring-r1-2", "--by", "1d")
    keys = make_game(home, "caesar-1", deadline=__import__("datetime").timedelta(hours=72))
    with Home(home).open("caesar-1") as st:
        hands = st.adjudication().session.game.state.hands  # type: ignore[attr-defined]
        for s in Side:
            st.receive(signed(keys, s, 1, f"discard {hands[s][0]}\nplay {hands[s][1]}", game="caesar-1"))
    return home


def test_the_site_shows_every_game_and_tournament_and_nothing_hidden(club: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    r = CliRunner().invoke(main, ["--home", str(club), "site", "-o", str(out)])
    assert r.exit_code == 0 and r.output == f"wrote 5 pages into {out} (open {out / 'index.html'})\n"
    index = (out / "index.html").read_text()
    for g in ("spring-r1-1", "spring-r1-2", "caesar-1"):
        assert f'<a href="games/{g}.html">{g}</a>' in index
    assert '<a href="tournaments/spring.html">' in index
    assert "over: " in index and "paused" not in index
    t = (out / "tournaments" / "spring.html").read_text()
    assert "<th>Buchholz</th>" in t and '<a href="../games/spring-r1-1.html">spring-r1-1</a>' in t
    assert re.search(r"<td>1</td><td>(Ann|Bob)</td><td>1</td>", t)  # the forfeit's winner leads
    page = (out / "games" / "spring-r1-1.html").read_text()
    assert "The moderator rules that" in page and "Game over:" in page
    page2 = (out / "games" / "spring-r1-2.html").read_text()
    assert "The moderator extends the deadline of step 1 by 1d" in page2 and "waits for" in page2
    assert "(Ann)" in page2 or "(Cid)" in page2 or "(Bob)" in page2 or "(Dan)" in page2  # players by name
    # the Caesar game: its public events are there, nothing addressed to one side or the moderator
    caesar = (out / "games" / "caesar-1.html").read_text()
    with Home(club).open("caesar-1") as st:
        events = [ev for _, _, ev in st.events()]
        step_title = st.status().title
    public = {ev.text for ev in events if ev.audience == "all"}
    hidden = [ev.text for ev in events if ev.audience != "all" and ev.text not in public]
    assert public and hidden  # the deals are private
    for text in public:
        assert text.replace("'", "&#x27;") in caesar or text in caesar
    for text in hidden:
        assert text not in caesar and text.replace("'", "&#x27;") not in caesar
    assert step_title not in caesar  # a step's title may name blocks: never shown
    assert "Caesar, Pompey" in caesar or "Caesar" in caesar
    # written again: the same pages (nothing left half-written, no temporary files)
    write_site(Home(club), out)
    assert not list(out.rglob(".*.tmp"))


# Headless Chromium's window is at least 500 px wide, so a phone's width is set on the page itself; the
# probe then reports how wide the body's content is and how wide its box is (a wide table may scroll
# inside its own box: that is the page's design on a phone, and does not widen the page).
MEASURE = ("<script>document.body.setAttribute('data-width', document.body.scrollWidth + '/' + "
           "document.body.clientWidth);</script></body>")


@pytest.mark.parametrize("width", [1280, 390])
def test_the_pages_fit_desktop_and_phone_widths_in_chromium(club: Path, tmp_path: Path, chromium: str,  # noqa: F811
                                                            width: int) -> None:
    out = tmp_path / "site"
    write_site(Home(club), out)
    for rel in ("index.html", "tournaments/spring.html", "games/caesar-1.html"):
        page = out / rel
        probe = page.with_name(f"probe-{page.name}")  # a copy that measures its own width (the site has no script)
        text = page.read_text().replace("</body>", MEASURE).replace("</head>", f"<style>html {{ width: {width}px; }}"
                                                                               "</style></head>")
        probe.write_text(text, encoding="utf-8")
        dom = run_chromium(chromium, probe, tmp_path / "chromium", "--dump-dom", "--window-size=1280,900").stdout
        m = re.search(r'data-width="(\d+)/(\d+)"', dom)
        assert m, dom[:500]
        content, box = int(m.group(1)), int(m.group(2))
        assert box <= width and content <= box, f"{rel}: content {content} px in a {box} px body at {width} px"
        assert "<table" in dom or rel.startswith("games/")
        assert "<h1>" in dom
    png = tmp_path / f"index-{width}.png"
    run_chromium(chromium, out / "index.html", tmp_path / "chromium", f"--screenshot={png}",
                 f"--window-size={max(width, 500)},900")
    img = read_png(png)
    assert img.width == max(width, 500)
    colours = {px for y in range(0, img.height, 7) for px in img.row_rgb(y)}
    assert len(colours) > 20  # text and table shading were drawn, not a blank page
