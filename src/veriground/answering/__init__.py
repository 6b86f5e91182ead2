"""Grounded answers (seed 003): evidence gate -> draft (extractive or LLM) -> verification -> answer policy."""
