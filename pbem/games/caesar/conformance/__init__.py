"""The Julius Caesar conformance suite: rule cases as data and the runner that checks them.

``cases/*.json`` holds the cases, one list per rules section (cards, movement, levy,
battle, events, winter, rulings); each quotes the rule or ruling it checks. Many are
written in the order language, as players send them, so the parser, the submission
checker and the engine are tested together. :func:`load_cases` reads them from the
package (they ship in the wheel); :func:`~pbem.games.caesar.conformance.runner.run_case`
runs one and returns what differed.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from pbem.games.caesar.conformance.runner import Problem, run_case

__all__ = ["Problem", "load_cases", "run_case"]


def load_cases() -> list[tuple[str, dict[str, Any]]]:
    """Every case, as ``(file stem, case)``, files in name order and cases in file order."""
    folder = resources.files(__name__).joinpath("cases")
    out: list[tuple[str, dict[str, Any]]] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        stem = entry.name[: -len(".json")]
        out.extend((stem, case) for case in json.loads(entry.read_text(encoding="utf-8")))
    return out
