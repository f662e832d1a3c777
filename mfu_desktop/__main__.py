"""``python -m mfu_desktop`` runs the ``mfu`` command line."""

from mfu_desktop.cli.main import run

run()
