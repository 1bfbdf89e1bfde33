"""Dataset loaders (Seal-Tools, ToolDEER, JSONL) and the bundled attributed sample."""
