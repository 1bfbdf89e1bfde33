"""The OpenAI-compatible server (`toollearn serve`)."""
