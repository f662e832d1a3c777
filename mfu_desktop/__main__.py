"""``python -m mfu_desktop`` runs the ``mfu`` command line."""

from mfu_desktop.cli import run

run()
