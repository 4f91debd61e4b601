"""`python -m pbem`: the same as the `pbem` command."""

from pbem.cli import main

if __name__ == "__main__":
    main()
