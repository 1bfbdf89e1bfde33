"""Core types and errors: no heavy dependencies, imported by every other layer."""
