"""judge: an email judge for Diplomacy."""

__version__ = "0.3.0"
