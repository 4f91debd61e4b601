"""`python -m pbem`: the same as the `pbem` command."""

from pbem.cli import run

if __name__ == "__main__":
    run()
