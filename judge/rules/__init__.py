"""The rules engine: pure functions from a position and orders to a new position. No I/O happens in this package."""
