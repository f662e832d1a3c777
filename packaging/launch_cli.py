"""PyInstaller entry of the command line (``mfu``)."""

import sys

from mfu_desktop.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
