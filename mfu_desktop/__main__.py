"""``python -m mfu_desktop`` runs the ``mfu`` command line."""

import sys

from mfu_desktop.cli import main

sys.exit(main())
