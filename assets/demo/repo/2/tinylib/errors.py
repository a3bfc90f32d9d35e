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


class RetryError(TinylibError):
    """An operation still failed after the last attempt allowed by :func:`tinylib.retry`.

    The exception raised by the last attempt is available as :attr:`last_exception`
    and as ``__cause__``.
    """

    def __init__(self, attempts, last_exception):
        super().__init__(f"Gave up after {attempts} attempts: {last_exception!r}")
        self.attempts = attempts
        self.last_exception = last_exception
