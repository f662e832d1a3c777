"""Qt item models over the engine's frames (no arithmetic, no frame mutation)."""
