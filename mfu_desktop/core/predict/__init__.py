"""Cross-chip prediction: every measured kernel rescaled to a target chip, plus the step around it (prediction.md)."""
