"""The ``--json`` contracts: one schema version stamped on every object the ``mfu`` command prints.

Schema 2 (this version): every time is per step (mean over the captured steps) and per rank
(mean over ranks) unless its key says ``total``; counts of calls in aggregate tables are per
step too. The README lists what changed from schema 1.
"""

from __future__ import annotations

#: Bumped when the meaning or the name of a key changes.
JSON_SCHEMA = 2


def stamped(payload: dict[str, object]) -> dict[str, object]:
    """``payload`` with ``"schema"`` first."""
    return {"schema": JSON_SCHEMA, **{k: v for k, v in payload.items() if k != "schema"}}
