"""PyInstaller entry of the windowed app (``mfu-desktop``)."""

import sys

from mfu_desktop.gui.app import main

if __name__ == "__main__":
    sys.exit(main())
