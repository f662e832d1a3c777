"""PyInstaller entry of the windowed app (``mfu-desktop``)."""

import multiprocessing
import sys

from mfu_desktop.gui.app import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # trace files decode in spawned worker processes: they start here
    sys.exit(main())
