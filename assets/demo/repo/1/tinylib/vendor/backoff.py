# pybackoff-lite 1.2.0 -- delay generators for retry loops.
# Copyright (c) 2021 the pybackoff-lite contributors. MIT licence.
# Vendored into tinylib unchanged; see tinylib/vendor/README.md.
"""Generators of delays (in seconds) between attempts of a retried operation."""

import itertools

__version__ = "1.2.0"


def constant(interval=1.0):
    """Yield ``interval`` forever."""
    while True:
        yield interval


def expo(base=2.0, factor=1.0, max_value=None):
    """Yield ``factor * base ** n`` for n = 0, 1, 2, ..., capped at ``max_value``."""
    for n in itertools.count():
        value = factor * base**n
        if max_value is not None and value >= max_value:
            yield max_value
        else:
            yield value


def fibo(max_value=None):
    """Yield the Fibonacci sequence 1, 1, 2, 3, 5, ..., capped at ``max_value``."""
    a, b = 1, 1
    while True:
        if max_value is not None and a >= max_value:
            yield max_value
        else:
            yield a
        a, b = b, a + b


def full_jitter(value, rng):
    """Return a delay drawn uniformly from [0, value] with the random source ``rng``.

    Only float delays are supported when using full_jitter, not timedelta objects.
    """
    return rng.uniform(0, value)
