"""Entry point of the ``mfu-desktop`` GUI script."""

from __future__ import annotations


def main() -> int:
    """Placeholder until the desktop window lands: say so instead of faking screens."""
    print("MFU Desktop GUI coming; use the `mfu` command line meanwhile (mfu --help).")
    return 0
