"""``python -m mfu_desktop`` runs the ``mfu`` command line."""

from mfu_desktop.cli.main import run

if __name__ == "__main__":  # not when a spawned worker process imports this module
    run()
