"""PyInstaller entry of the command line (``mfu``)."""

import multiprocessing
import sys

from mfu_desktop.cli.main import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # trace files decode in spawned worker processes: they start here
    sys.exit(main())
