"""The package type-checks: the rules engine promises typed code, and so does the rest."""

from __future__ import annotations

from pathlib import Path

from mypy import api as mypy_api  # part of the test extra: pip install '.[test]'

REPO = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_errors() -> None:
    out, err, status = mypy_api.run(["--config-file", str(REPO / "pyproject.toml"), str(REPO / "pbem")])
    assert status == 0, out + err
