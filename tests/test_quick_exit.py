"""The ``pbem`` program ends without Python's teardown (:func:`pbem.cli.run`): its output, its exit
status, the exit handlers and the game files must be what the ordinary exit gives."""

from __future__ import annotations

import ast
import sqlite3
import subprocess
import sys
from pathlib import Path

from store_helpers import cli_env, run_pbem


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=cli_env())


def test_the_exit_handlers_run_and_what_they_print_is_kept() -> None:
    r = _python("import atexit\n"
                "atexit.register(print, 'handler ran')\n"
                "from pbem.cli import run\n"
                "run(['--version'])\n"
                "print('not reached')\n")
    assert r.returncode == 0, r.stderr
    version, handler = r.stdout.splitlines()
    assert version.startswith("pbem, version ")
    assert handler == "handler ran"


def test_the_command_runs_with_a_larger_young_generation() -> None:
    r = _python("import atexit, gc\n"
                "atexit.register(lambda: print(gc.get_threshold()))\n"
                "from pbem.cli import run\n"
                "from pbem.cli.base import GC_YOUNG\n"
                "print(GC_YOUNG, gc.get_threshold())\n"
                "run(['--version'])\n")
    assert r.returncode == 0, r.stderr
    first, _version, during = r.stdout.splitlines()
    young, default = first.split(" ", 1)
    before = ast.literal_eval(default)
    assert int(young) > 10 * before[0]
    assert ast.literal_eval(during) == (int(young), *before[1:])


def test_the_exit_status_is_the_commands(tmp_path: Path) -> None:
    usage = run_pbem("no-such-command", cwd=tmp_path)
    assert usage.returncode == 2
    assert "No such command 'no-such-command'" in usage.stderr
    error = run_pbem("--home", str(tmp_path / "home"), "verify", "--game", "nosuch", cwd=tmp_path)
    assert error.returncode == 1
    assert error.stderr.startswith("Error:")


def test_a_thread_still_running_is_waited_for() -> None:
    r = _python("import threading, time\n"
                "def late():\n"
                "    time.sleep(0.3)\n"
                "    print('thread done', flush=True)\n"
                "threading.Thread(target=late).start()\n"
                "from pbem.cli import run\n"
                "run(['--version'])\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "thread done"


def test_a_profiler_gets_its_output(tmp_path: Path) -> None:
    out = tmp_path / "pbem.prof"
    r = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "pbem", "--version"], capture_output=True,
                       text=True, timeout=120, env=cli_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("pbem, version ")
    assert out.stat().st_size > 0  # written after the program returned: the ordinary exit


def test_long_output_through_a_pipe_is_whole(tmp_path: Path) -> None:
    # the same command ended the ordinary way (click's own sys.exit, then Python's teardown)
    expected = _python("from pbem.cli import main\nmain(['new', '--help'], prog_name='pbem')")
    assert expected.returncode == 0
    r = run_pbem("new", "--help", cwd=tmp_path)
    assert r.returncode == 0
    assert r.stdout == expected.stdout
    assert len(r.stdout) > 2000


def test_a_game_file_is_whole_and_closed_after_the_command(tmp_path: Path) -> None:
    for side in ("caesar", "pompey"):
        assert run_pbem("keygen", side, cwd=tmp_path).returncode == 0
    home = tmp_path / "home"
    r = run_pbem("--home", str(home), "new", "g1", "--player", "Caesar=c@example.org", "--key", "Caesar=caesar.pub",
              "--player", "Pompey=p@example.org", "--key", "Pompey=pompey.pub", "--seed", "705", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    # every connection was closed before the quick exit: SQLite folded its write-ahead log into the file
    assert sorted(p.name for p in home.glob("g1.db*")) == ["g1.db"]
    with sqlite3.connect(home / "g1.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    v = run_pbem("--home", str(home), "verify", "--game", "g1", cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
    assert "OK" in v.stdout
