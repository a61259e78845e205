"""``python -m veil``: the command line (as the ``veil`` script)."""

from veil.cli import main

if __name__ == "__main__":
    main()
