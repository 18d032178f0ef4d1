"""judge: an email judge for Diplomacy."""

__version__ = "0.1.0"
