"""The package's version: the package names it, and the disk cache of translations keys on it."""

__version__ = "0.1.0"
