"""The rules package stays pure: no I/O, clock, database, templates or command line (STYLE, DESIGN)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pbem.caesar

CAESAR = Path(pbem.caesar.__file__).resolve().parent
FORBIDDEN = {
    "click", "sqlmodel", "sqlalchemy", "sqlite3", "jinja2", "cryptography", "smtplib", "email", "mailbox",
    "socket", "subprocess", "os", "shutil", "tempfile", "time", "datetime", "pathlib", "random", "secrets",
    "pbem.store", "pbem.cli", "pbem.reports", "pbem.envelope", "pbem.mail", "pbem.audit", "pbem.decide",
}
# reading the packaged board data once is the one exception (board.default_board)
ALLOWED = {"board.py": {"importlib"}}


def imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


@pytest.mark.parametrize("module", sorted(p.name for p in CAESAR.glob("*.py")))
def test_rules_modules_import_nothing_impure(module: str) -> None:
    names = imported(CAESAR / module)
    bad = sorted(n for n in names if any(n == f or n.startswith(f + ".") for f in FORBIDDEN))
    assert not bad, f"pbem/caesar/{module} imports {bad}: the rules package must stay pure"
    if "importlib" in {n.split(".")[0] for n in names}:
        assert "importlib" in ALLOWED.get(module, set()), f"pbem/caesar/{module} reads package files"
