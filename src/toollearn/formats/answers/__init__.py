"""Answer formats: what a model writes for one benchmark, parsed and rendered."""
