"""The layers of the house (ARCHITECTURE.md), checked from the code's own imports.

* A game's package is pure: no I/O, clock, database, templates or command line (STYLE, DESIGN),
  and of pbem it imports only the core (:mod:`pbem.core`, :mod:`pbem.errors`) and itself.
* The core never imports a game by name: only :mod:`pbem.games` (the registry) names one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pbem
import pbem.games.caesar

PBEM = Path(pbem.__file__).resolve().parent
CAESAR = Path(pbem.games.caesar.__file__).resolve().parent
FORBIDDEN = {
    "click", "sqlmodel", "sqlalchemy", "sqlite3", "jinja2", "cryptography", "smtplib", "email", "mailbox",
    "socket", "subprocess", "os", "shutil", "tempfile", "time", "datetime", "pathlib", "random", "secrets",
}
GAME_MAY_IMPORT = ("pbem.core", "pbem.errors")
# reading packaged data is the one exception: the board (board.default_board) and the
# conformance cases (conformance.load_cases)
ALLOWED = {"rules/board.py": {"importlib"}, "conformance/__init__.py": {"importlib"}}


def imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


GAME_MODULES = sorted(p.relative_to(CAESAR).as_posix() for p in CAESAR.rglob("*.py"))
# an installed wheel also carries the sample game's maker (pbem/examples) and the templates: not the core
CORE_MODULES = sorted(p.relative_to(PBEM).as_posix() for p in PBEM.rglob("*.py")
                      if not p.relative_to(PBEM).as_posix().startswith(("games/", "examples/", "templates/")))


@pytest.mark.parametrize("module", GAME_MODULES)
def test_game_modules_are_pure_and_import_only_the_core(module: str) -> None:
    names = imported(CAESAR / module)
    bad = sorted(n for n in names if any(_under(n, f) for f in FORBIDDEN))
    assert not bad, f"pbem/games/caesar/{module} imports {bad}: a game's package must stay pure"
    if "importlib" in {n.split(".")[0] for n in names}:
        assert "importlib" in ALLOWED.get(module, set()), f"pbem/games/caesar/{module} reads package files"
    outside = sorted(n for n in names if _under(n, "pbem") and not _under(n, "pbem.games.caesar")
                     and not any(_under(n, p) for p in GAME_MAY_IMPORT))
    assert not outside, f"pbem/games/caesar/{module} imports {outside}: a game imports only pbem.core and pbem.errors"


@pytest.mark.parametrize("module", CORE_MODULES)
def test_the_core_never_imports_a_game_by_name(module: str) -> None:
    names = imported(PBEM / module)
    games = sorted(n for n in names if _under(n, "pbem.games") and n != "pbem.games")
    assert not games, f"pbem/{module} imports {games}: the core finds games through pbem.games.find_game"


def test_the_core_package_imports_nothing_of_pbem_but_errors() -> None:
    for path in (PBEM / "core").rglob("*.py"):
        names = imported(path)
        bad = sorted(n for n in names if _under(n, "pbem") and not _under(n, "pbem.core") and n != "pbem.errors")
        assert not bad, f"{path.relative_to(PBEM)} imports {bad}"


def test_the_layer_test_sees_the_modules() -> None:  # a glob that finds nothing would pass everything
    assert "rules/game.py" in GAME_MODULES and "system.py" in GAME_MODULES
    assert "store.py" in CORE_MODULES or "store/__init__.py" in CORE_MODULES


def test_the_command_line_loads_no_heavy_library_until_a_command_runs() -> None:
    """`pbem --help` and `--version` pay for click and little else: SQL, templates, cryptography and the
    rules are imported by the commands that use them (measured by what is imported, not by a clock)."""
    import subprocess
    import sys

    code = ("import sys, pbem.cli; heavy = ('sqlalchemy', 'sqlmodel', 'pydantic', 'jinja2', 'cryptography', "
            "'pbem.store', 'pbem.games.caesar', 'zstandard'); "
            "print(sorted({m for m in sys.modules if m.startswith(heavy)}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    """The README's second command is what CI runs after installing the system programs."""
    repo = Path(__file__).resolve().parents[1]  # the checkout (the package may be installed elsewhere)
    readme = (repo / "README.md").read_text(encoding="utf-8")
    ci = (repo / ".ci" / "run").read_text(encoding="utf-8")
    command = "pip install '.[test]' && mypy && ruff check && pytest"
    assert f"```sh\n{command}\n```" in readme
    assert ci.rstrip().splitlines()[-1] == command


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PBEM.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_import_circle_in_the_package() -> None:
    """No two modules of pbem import each other, directly or round a longer circle, counting the imports
    made inside functions too (a late import hides a circle from Python, not from the reader)."""
    paths = [p for p in PBEM.rglob("*.py")
             if not p.relative_to(PBEM).as_posix().startswith(("examples/", "templates/"))]
    modules = {_module_name(p): p for p in paths}
    graph = {name: sorted(n for n in imported(path) if n in modules and n != name) for name, path in modules.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name: str, trail: list[str]) -> None:
        state[name] = 1
        for nxt in graph[name]:
            if state.get(nxt) == 1:
                circle = trail[trail.index(nxt):] + [nxt] if nxt in trail else [name, nxt]
                raise AssertionError("import circle: " + " -> ".join(circle))
            if nxt not in state:
                visit(nxt, [*trail, nxt])
        state[name] = 2

    for name in sorted(modules):
        if name not in state:
            visit(name, [name])
    assert "pbem.store" in modules and graph["pbem.tournament"]  # the walk saw the house
