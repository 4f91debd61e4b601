"""The home's settings: a small JSON file, ``settings.json`` in the game folder (``pbem config``).

It holds the home's default deadline per step: a game made without ``--deadline`` (``pbem new``,
a tournament made without one, and so its games) takes it, so a forgotten deadline no longer
means a game that never times out. The file is written whole (a temporary file renamed over it),
so a killed ``pbem config`` leaves the old settings or the new ones, never half of them.

Format::

    {"away_cap": "14d", "deadline": "72h", "format": "pbem-settings 1"}

``deadline`` is a duration (``72h``, ``3d``, ``1d12h``) or null (no default); ``away_cap`` (default 14d)
is how far a player's ``away until DATE`` may move a step's deadline.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from pbem.decide import StoreError, format_duration, parse_duration

FILE = "settings.json"
FORMAT = "pbem-settings 1"
DEFAULT_AWAY_CAP = timedelta(days=14)


@dataclass(frozen=True)
class Settings:
    deadline: timedelta | None = None  # the default deadline per step of a game made without one
    away_cap: timedelta = DEFAULT_AWAY_CAP  # how far a player's "away until DATE" may move a deadline

    def to_json(self) -> dict[str, object]:
        return {"format": FORMAT,
                "deadline": format_duration(int(self.deadline.total_seconds())) if self.deadline else None,
                "away_cap": format_duration(int(self.away_cap.total_seconds()))}


def settings_file(home: Path) -> Path:
    return Path(home) / FILE


def load(home: Path) -> Settings:
    """The home's settings (the defaults when it has no settings file). A file that cannot be read
    is an error that names it and says how to fix it, never silently ignored."""
    path = settings_file(home)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings()
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise StoreError(f"{path} is not JSON ({exc}); fix it or set the settings again with "
                         "`pbem config --deadline 72h`") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise StoreError(f"{path} is not a pbem settings file (it needs \"format\": {FORMAT!r}); set the settings "
                         "again with `pbem config --deadline 72h`")
    unknown = sorted(set(data) - {"format", "deadline", "away_cap"})
    if unknown:
        raise StoreError(f"{path}: unknown setting {', '.join(map(repr, unknown))}; the settings are: deadline, "
                         "away_cap")
    cap_text = data.get("away_cap")
    if cap_text is not None and not isinstance(cap_text, str):
        raise StoreError(f"{path}: \"away_cap\" must be a duration like \"14d\", not {cap_text!r}")
    try:
        cap = parse_duration(cap_text) if cap_text else DEFAULT_AWAY_CAP
    except StoreError as exc:
        raise StoreError(f"{path}: {exc}") from None
    raw = data.get("deadline")
    if raw is not None and not isinstance(raw, str):
        raise StoreError(f"{path}: \"deadline\" must be a duration like \"72h\" or null, not {raw!r}")
    try:
        deadline = parse_duration(raw) if raw else None
    except StoreError as exc:
        raise StoreError(f"{path}: {exc}") from None
    return Settings(deadline=deadline, away_cap=cap)


def save(home: Path, settings: Settings) -> Path:
    """Write the settings whole (temporary file, fsync, rename)."""
    path = settings_file(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{FILE}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(settings.to_json(), sort_keys=True) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path


def default_deadline(home: Path) -> timedelta | None:
    """The deadline per step of a game made without one."""
    return load(home).deadline


def deadline_for(home: Path, given: str | None) -> timedelta | None:
    """The deadline a new game or tournament gets: ``given`` (a duration, or ``none`` for no
    deadline at all), else the home's default (None when there is none either)."""
    if given is not None and given.strip().lower() == "none":
        return None
    if given is not None:
        return parse_duration(given)
    return default_deadline(home)


#: the folder of a home that holds the tournament files (pbem.tournament)
TOURNAMENTS_FOLDER = "tournaments"


def away_cap_of(home: Path, game: str) -> timedelta | None:
    """The absence cap of the tournament ``game`` belongs to (named ``NAME-r<round>-<table>`` and in its
    pairings), or None when it belongs to none or its tournament sets none. Read with sqlite3 alone, from
    here rather than from :mod:`pbem.tournament` (which builds on the store): the store asks it whenever a
    player's absence moves a deadline (:func:`away_cap`)."""
    import sqlite3

    m = re.fullmatch(r"(.+)-r\d+-\d+", game)
    path = home / TOURNAMENTS_FOLDER / f"{m.group(1)}.db" if m else None
    if path is None or not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        try:
            if db.execute("SELECT 1 FROM pairing WHERE game = ?", (game,)).fetchone() is None:
                return None
            row = db.execute("SELECT away_cap_seconds FROM tournament").fetchone()
        finally:
            db.close()
    except sqlite3.Error:  # a file of before the away cap (no column yet), or one being written: the home's
        return None
    return timedelta(seconds=row[0]) if row and row[0] else None


def away_cap(home: Path, game: str) -> timedelta:
    """How far a player's absence may move a deadline of ``game``: its tournament's cap when that sets one
    (``pbem tournament new --away-cap``), else the home's (``pbem config --away-cap``)."""
    cap = away_cap_of(home, game)
    return cap if cap is not None else load(home).away_cap
