"""Command-line interface: thin modules, one per command group (argument parsing + printing)."""
