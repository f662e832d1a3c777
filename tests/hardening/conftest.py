"""Hardening tests: count the fuzz cases and report them at the end of the run."""

from __future__ import annotations

from collections import Counter

CASES: Counter[str] = Counter()
#: Figures the hardening tests measured (printed at the end of the run for the notes).
REPORT: dict[str, str] = {}


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if CASES:
        terminalreporter.section("fuzz cases run")
        for target, count in sorted(CASES.items()):
            terminalreporter.write_line(f"{target:<44} {count:>6}")
        terminalreporter.write_line(f"{'total':<44} {sum(CASES.values()):>6}")
    if REPORT:
        terminalreporter.section("hardening figures")
        for name, value in REPORT.items():
            terminalreporter.write_line(f"{name}: {value}")

# The window fixture of the GUI tests (concurrency and read-only tests drive the real window).
from tests.gui.conftest import make_window  # noqa: E402, F401
