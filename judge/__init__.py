"""judge: an email judge for Diplomacy."""

__version__ = "0.2.0"
