"""The home's default deadline (`pbem config`, pbem/settings.py): games and tournaments made without a
deadline take it; `pbem new` and `pbem status` warn about a game that has none."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pbem import settings
from pbem.cli import main
from pbem.store import Home, StoreError
from pbem.tournament import Tournament

PLAYERS = ["--player", "Caesar=ann@example.org", "--password", "Caesar=first horse",
           "--player", "Pompey=bob@example.org", "--password", "Pompey=second horse"]


def cli(home: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--home", str(home), *args], catch_exceptions=True)


def test_settings_file_round_trip_and_bad_files(tmp_path: Path) -> None:
    assert settings.load(tmp_path) == settings.Settings()
    assert settings.deadline_for(tmp_path, None) is None
    settings.save(tmp_path, settings.Settings(deadline=timedelta(days=1, hours=12)))
    assert json.loads((tmp_path / "settings.json").read_text()) == {"format": "pbem-settings 1", "deadline": "1d12h",
                                                                    "away_cap": "14d"}
    assert settings.deadline_for(tmp_path, None) == timedelta(hours=36)
    assert settings.deadline_for(tmp_path, "2h") == timedelta(hours=2)
    assert settings.deadline_for(tmp_path, "none") is None
    for text, says in (("{", "is not JSON"), ('{"deadline": "3d"}', "not a pbem settings file"),
                       ('{"format": "pbem-settings 1", "deadline": 3}', "must be a duration"),
                       ('{"format": "pbem-settings 1", "deadline": "3x"}', "'3x' is not a duration"),
                       ('{"format": "pbem-settings 1", "dedline": "3d"}', "unknown setting 'dedline'")):
        (tmp_path / "settings.json").write_text(text)
        with pytest.raises(StoreError, match=says):
            settings.load(tmp_path)
    assert not list(tmp_path.glob(".settings.json*"))  # no temporary file left behind


def test_new_takes_the_home_default_and_warns_without_any(tmp_path: Path) -> None:
    home = tmp_path / "home"
    r = cli(home, "new", "bare", *PLAYERS)
    assert r.exit_code == 0 and "deadline per step none" in r.stdout
    assert "warning: game bare has no deadline" in r.stderr
    r = cli(home, "status")
    assert r.exit_code == 0 and "warning: no deadline: bare never times out" in r.stderr
    assert "warning" not in r.stdout  # stdout stays the status programs read
    r = cli(home, "config", "--deadline", "3d")
    assert r.exit_code == 0 and r.stdout.startswith("deadline 3d (a game made without --deadline gets it)\n")
    r = cli(home, "new", "timed", *PLAYERS)
    assert r.exit_code == 0 and "deadline per step 3d" in r.stdout and "warning" not in r.stderr
    r = cli(home, "new", "own", *PLAYERS, "--deadline", "12h")
    assert "deadline per step 12h" in r.stdout
    r = cli(home, "new", "never", *PLAYERS, "--deadline", "none")
    assert "deadline per step none" in r.stdout and "warning: game never has no deadline" in r.stderr
    with Home(home).open("timed") as st:
        assert st.game().deadline_seconds == 3 * 86400 and st.status().deadline is not None
    r = cli(home, "status", "--game", "timed")
    assert r.exit_code == 0 and "warning" not in r.stderr
    r = cli(home, "status")
    assert "warning: no deadline: bare, never never time out" in r.stderr
    assert json.loads(cli(home, "config", "--json").stdout) == {"deadline": "3d", "format": "pbem-settings 1",
                                                                "away_cap": "14d"}
    r = cli(home, "config", "--deadline", "none")
    assert r.stdout.startswith("deadline none (a game made without --deadline never times out)\n")
    r = cli(home, "config", "--deadline", "3x")
    assert r.exit_code == 1 and "'3x' is not a duration" in r.output
    assert settings.load(home).deadline is None  # a refused value changes nothing


def test_a_tournament_without_a_deadline_takes_the_home_default(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert cli(home, "config", "--deadline", "2d").exit_code == 0
    r = cli(home, "tournament", "new", "t", "--rounds", "1", "--seed", "5")
    assert r.exit_code == 0 and "warning" not in r.stderr
    with Tournament(Home(home), "t") as t:
        assert t.record().deadline_seconds == 2 * 86400
    r = cli(home, "tournament", "new", "u", "--rounds", "1", "--seed", "5", "--deadline", "none")
    assert r.exit_code == 0 and "warning: no deadline" in r.stderr
    for name in ("Ann", "Bob"):
        assert cli(home, "tournament", "add", "u", "--player", name, "--email", f"{name.lower()}@example.org",
                   "--password", f"{name} horse").exit_code == 0
    assert cli(home, "config", "--deadline", "5d").exit_code == 0
    r = cli(home, "tournament", "pair", "u")
    assert r.exit_code == 0, r.output
    with Home(home).open("u-r1-1") as st:  # the tournament has none: its games take the home's
        assert st.game().deadline_seconds == 5 * 86400
