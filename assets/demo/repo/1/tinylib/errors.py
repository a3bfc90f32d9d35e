"""Exceptions raised by tinylib.

Every exception derives from :class:`TinylibError`, so callers can catch the whole
family at once. Errors about bad input values also derive from :class:`ValueError`,
which keeps ``except ValueError`` working for code written before these classes existed.
"""


class TinylibError(Exception):
    """Base class for every error raised by tinylib."""


class ParseError(TinylibError, ValueError):
    """A file could not be parsed. The message starts with ``path:line:``."""


class InvalidSizeError(TinylibError, ValueError):
    """A size string such as ``"10MB"`` could not be understood."""


class InvalidDurationError(TinylibError, ValueError):
    """A duration string such as ``"1h30m"`` could not be understood."""


class UnsupportedOptionError(TinylibError, ValueError):
    """An option was given a value that tinylib does not support."""
