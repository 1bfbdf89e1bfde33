"""Training and evaluation data generation (templates + value pools, ...)."""
