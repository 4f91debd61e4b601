"""``python -m pbem.cli``: the same as ``pbem``."""

from pbem.cli import run

run()
