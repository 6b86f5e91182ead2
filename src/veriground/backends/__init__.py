"""Backends behind small batch-first protocols (NLI first); heavy models are imported only by their factories."""
