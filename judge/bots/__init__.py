"""Bots that play a power nobody plays (pure: they may import the rules engine only)."""
