"""Evaluation: metrics (pure functions), benchmark runners and plain-text reports."""
