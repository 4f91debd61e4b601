"""The command line on a game folder, as the CLI tests call it (``pbem --home HOME ...`` in this process)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from pbem.cli import main


def cli(home: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--home", str(home), *args], catch_exceptions=False)


def ok(home: Path, *args: str) -> str:
    """The output of a command that must succeed (exit code 0)."""
    r = cli(home, *args)
    assert r.exit_code == 0, r.output
    return r.output
