"""The club's public pages (``pbem site -o DIR``): static HTML, built only from facts both sides know.

``index.html`` lists every tournament (standings and pairings) and every game: whose turn it is, the
deadline, and when its last step opened; ``games/<id>.html`` is one game's public page:
its score and result, the open step's kind, whom it waits for and its deadline, and the events
whose audience is ``all``, as both players' reports show them. Nothing else of a game is read:
never an event addressed to one side or to the moderator, never a step's title (a battle step's
may name blocks), nor whose sealed orders are in, nor a submission. ``tournaments/<name>.html``:
standings and pairings. The pages need no script and no network; they fit a phone's width.
"""

from __future__ import annotations

import html
import os
from dataclasses import dataclass, field
from pathlib import Path

from pbem.core.events import ALL
from pbem.store import Home
from pbem.tournament import SCORING, TIE_BREAKS, Tournament, tournament_names

e = html.escape

CSS = """
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 0.75rem; line-height: 1.4;
       color: #222; background: #fdfcf8; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 1.5rem; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.3rem 0.5rem; border-bottom: 1px solid #ddd; vertical-align: top; }
th { background: #efe9dc; }
ol.log { padding-left: 1.5rem; } ol.log li { margin: 0.15rem 0; overflow-wrap: anywhere; }
.over { color: #555; } .turn { font-weight: bold; }
a { color: #1f4e8c; }
"""


@dataclass
class GameLine:
    """One game as the public may see it."""

    game: str
    title: str  # the game system's title
    headline: str  # "705, turn 2"
    step: int
    kind: str
    waits_for: tuple[str, ...]
    deadline: str | None
    paused: bool
    last_activity: str  # when the open step opened (or the game ended)
    over: bool
    result: str
    score: dict[str, int]
    players: dict[str, str] = field(default_factory=dict)  # side -> player name (tournament games only)
    log: list[tuple[int, str]] = field(default_factory=list)  # (step, text) of the events for all


def _page(title: str, body: str, up: str = "") -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(title)}</title><style>{CSS}</style></head><body>\n"
            + (f"<p><a href=\"{up}index.html\">All games and tournaments</a></p>\n" if up else "")
            + body + "</body></html>\n")


def game_line(home: Home, game_id: str, players: dict[str, str] | None = None) -> GameLine:
    with home.open(game_id) as st:
        status = st.status()
        events = [(step, ev.text) for _, step, ev in st.events() if ev.audience == ALL]
        title = st.system.title
        last = st.last_opened()
    return GameLine(game=game_id, title=title, headline=status.summary.headline, step=status.step,
                    kind=status.kind, waits_for=() if status.over else status.awaiting,
                    deadline=None if status.over else status.deadline, paused=status.paused, last_activity=last,
                    over=status.over, result=status.result, score=dict(status.summary.score),
                    players=dict(players or {}), log=events)


def _turn(g: GameLine) -> str:
    if g.over:
        return f"<span class=\"over\">over: {e(g.result)}</span>"
    who = ", ".join(f"{s}" + (f" ({g.players[s]})" if s in g.players else "") for s in g.waits_for) or "nobody"
    return f"<span class=\"turn\">{e(who)}</span>"


def _deadline(g: GameLine) -> str:
    if g.over:
        return "-"
    if g.paused:
        return "paused by the moderator"
    return e(g.deadline or "none")


def game_page(g: GameLine) -> str:
    score = ", ".join(f"{e(s)} {v}" for s, v in g.score.items())
    sides = "".join(f"<li>{e(s)}: {e(p)}</li>" for s, p in g.players.items())
    log = "".join(f"<li>step {step}: {e(text)}</li>\n" for step, text in g.log)
    state = (f"<p class=\"over\">Game over: {e(g.result)}</p>" if g.over else
             f"<p>Step {g.step} ({e(g.kind)}): waits for {_turn(g)}; deadline {_deadline(g)}.</p>")
    body = (f"<h1>{e(g.game)}</h1>\n<p>{e(g.title)}: {e(g.headline)}; score {score}.</p>\n"
            + (f"<ul>{sides}</ul>\n" if sides else "") + state
            + f"<p>Last step opened {e(g.last_activity)}.</p>\n"
            + f"<h2>What both sides know</h2>\n<ol class=\"log\">\n{log}</ol>\n")
    return _page(f"{g.game}: {g.headline}", body, up="../")


def _games_table(lines: list[GameLine], prefix: str) -> str:
    rows = "".join(
        f"<tr><td><a href=\"{prefix}games/{e(g.game)}.html\">{e(g.game)}</a></td><td>{e(g.headline)}</td>"
        f"<td>{_turn(g)}</td><td>{_deadline(g)}</td><td>{e(g.last_activity)}</td></tr>\n" for g in lines)
    return ("<div class=\"scroll\"><table><thead><tr><th>game</th><th>where</th><th>whose turn</th><th>deadline</th>"
            f"<th>last step opened</th></tr></thead><tbody>\n{rows}</tbody></table></div>\n")


def tournament_page(t: Tournament, lines: dict[str, GameLine]) -> str:
    rows = "".join(
        f"<tr><td>{r.rank}</td><td>{e(r.player)}</td><td>{_pts(r.points)}</td><td>{_pts(r.buchholz)}</td>"
        f"<td>{r.margin:+d}</td><td>{r.wins}-{r.draws}-{r.losses}</td></tr>\n" for r in t.standings())
    pairings = "".join(
        f"<tr><td>{p.round}</td><td>{e(p.first)}</td><td>bye</td><td>-</td></tr>\n" if p.second is None else
        f"<tr><td>{p.round}</td><td>{e(p.first)} v {e(p.second)}</td>"
        f"<td><a href=\"../games/{e(p.game or '')}.html\">{e(p.game or '')}</a></td>"
        f"<td>{e((p.winner + ' wins' if p.winner else 'a draw') if p.over else _status(lines.get(p.game or '')))}</td>"
        "</tr>\n" for p in t.pairings())
    body = (f"<h1>{e(t.summary_line())}</h1>\n<h2>Standings</h2>\n<div class=\"scroll\"><table><thead><tr><th>#</th>"
            "<th>player</th><th>points</th><th>Buchholz</th><th>VP margin</th><th>W-D-L</th></tr></thead><tbody>\n"
            f"{rows}</tbody></table></div>\n<p>Points: {e(SCORING)}. Tie-breaks, in order: "
            f"{e('; then '.join(TIE_BREAKS))}.</p>\n<h2>Pairings</h2>\n<div class=\"scroll\"><table><thead><tr>"
            f"<th>round</th><th>players</th><th>game</th><th>result</th></tr></thead><tbody>\n{pairings}</tbody>"
            "</table></div>\n")
    return _page(f"{t.name}: standings", body, up="../")


def _status(g: GameLine | None) -> str:
    if g is None:
        return "running"
    return "running: waits for " + (", ".join(g.waits_for) or "nobody")


def _pts(x: float) -> str:
    whole = int(x)
    return f"{whole if whole or x == whole else ''}{'½' if x != whole else ''}" or "0"


def write_site(home: Home, out: Path) -> list[Path]:
    """Write the site into ``out``; the files written. Each file is written whole (a temporary
    file renamed over it), so a page being read while the site is rebuilt is the old or the new one."""
    players: dict[str, dict[str, str]] = {}  # game -> side -> player name
    tournaments = []
    for name in tournament_names(home):
        with Tournament(home, name) as t:
            tournaments.append(name)
            for p in t.pairings():
                if p.game and p.second is not None and home.file(p.game).exists():
                    with home.open(p.game) as st:
                        by_email = {x.email: x.side for x in st.players()}
                    emails = {en.name: en.email for en in t.entrants()}
                    for who in (p.first, p.second):
                        side = by_email.get(emails.get(who, ""))
                        if side:
                            players.setdefault(p.game, {})[side] = who
    lines = {gid: game_line(home, gid, players.get(gid)) for gid in home.games()}
    written = []
    for g in lines.values():
        written.append(_write(out / "games" / f"{g.game}.html", game_page(g)))
    sections = []
    for name in tournaments:
        with Tournament(home, name) as t:
            written.append(_write(out / "tournaments" / f"{name}.html", tournament_page(t, lines)))
            sections.append(f"<li><a href=\"tournaments/{e(name)}.html\">{e(t.summary_line())}</a></li>")
    body = ("<h1>The club</h1>\n"
            + ("<h2>Tournaments</h2>\n<ul>\n" + "\n".join(sections) + "\n</ul>\n" if sections else "")
            + "<h2>Games</h2>\n" + (_games_table(list(lines.values()), "") if lines else "<p>No games yet.</p>\n"))
    written.append(_write(out / "index.html", _page("The club", body)))
    return written


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path
