"""The sample game (``pbem demo``): a scripted game of Julius Caesar played from ``examples/``.

The sample's keys, signed submissions (one by email, a revision, a resend, a refused one and its
fix) and the reports they give are shipped in the wheel as ``pbem/examples``; a checkout reads
``examples/``. ``examples/make_sample.py`` makes them again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbem.receipts import describe_receipt
from pbem.store import GameSetup, Home, PlayerSetup, StoreError, Verdict

__all__ = ["examples_dir", "run_demo"]


def examples_dir() -> Any:
    """The sample game: ``pbem/examples`` in an installed package, else ``examples/`` of a checkout."""
    from importlib import resources

    try:
        ref = resources.files("pbem") / "examples"
        if ref.is_dir() and (ref / "game.json").is_file():
            return ref
    except (ModuleNotFoundError, OSError):  # pragma: no cover - odd installs
        pass
    repo = Path(__file__).resolve().parent.parent / "examples"
    if (repo / "game.json").is_file():
        return repo
    raise StoreError("the sample game is not installed (no pbem/examples and no examples/ folder); "
                     "reinstall pbem or run from a checkout")


def run_demo(home: Path, *, examples: Any = None, echo: Callable[[str], None] = print) -> dict[str, Any]:
    """Create the sample game in ``home``, feed every sample submission, export the reports.

    Returns what happened: the game, each file's verdict, and where the reports went.
    Raises :class:`StoreError` if a verdict is not the one the sample expects.
    """
    ex = examples if examples is not None else examples_dir()
    conf = json.loads((ex / "game.json").read_text(encoding="utf-8"))
    gid = conf["game"]
    h = Home(home)
    if gid in h.games():
        raise StoreError(f"the demo game {gid!r} already exists in {home}; use a fresh folder (--home)")
    players = tuple(
        PlayerSetup(side, conf["emails"][side],
                    public_key=(ex / conf["keys"][side]).read_text(encoding="utf-8").strip())
        for side in sorted(conf["emails"])
    )
    setup = GameSetup(game_id=gid, players=players, seed=int(conf["seed"]), system=conf.get("system", "caesar"),
                      options={**conf["options"], "battles": conf["battles"]})
    h.create(setup).close()
    echo(f"created game {gid} in {home} (seed {conf['seed']}; sample keys for both sides)")
    manifest = json.loads((ex / "submissions" / "manifest.json").read_text(encoding="utf-8"))
    fed = []
    with h.open(gid) as st:
        for item in manifest:
            raw = (ex / "submissions" / item["file"]).read_bytes()
            r = st.receive(raw, source=item["file"])
            lines = describe_receipt(r)
            echo(f"  {item['file']}: {lines[0]}")
            for more in lines[1:] if (r.resolved or r.verdict is Verdict.REJECTED) else ():
                echo(f"      {more.strip()}")
            fed.append({"file": item["file"], "verdict": r.verdict.value, "submission": r.submission})
            if r.verdict.value != item["expect"]:
                raise StoreError(f"sample {item['file']}: expected {item['expect']}, got {r.verdict.value}: "
                                 f"{r.reason} {list(r.errors)}; regenerate with examples/make_sample.py")
        out = home / f"{gid}-reports"
        rows = st.with_bodies(st.outbox())  # with those kept on demand (the steps that asked a player nothing)
        for row in rows:
            folder = out / f"step-{row.step:02d}"
            folder.mkdir(parents=True, exist_ok=True)
            ext = "txt" if row.format == "text" else "html"
            (folder / f"{row.recipient}.{ext}").write_text(row.body or "", encoding="utf-8")
        status = st.status()
    echo(f"now at step {status.step}: {status.title}")
    echo(f"{len(rows)} reports written to {out}")
    echo(f"try: pbem --home {home} report --game {gid} --side Caesar")
    return {"game": gid, "home": str(home), "fed": fed, "reports": str(out), "report_files": len(rows),
            "step": status.step}
