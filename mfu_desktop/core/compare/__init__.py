"""Compare two profiles: what changed, where, and by how much (before/after, or chip vs chip)."""
