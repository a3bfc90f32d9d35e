"""Retrying flaky operations with exponential backoff."""

import functools
import time

from .durations import parse_duration
from .errors import RetryError, UnsupportedOptionError
from .vendor import backoff


def retry(attempts=3, delay="100ms", factor=2.0, max_delay="10s", exceptions=(Exception,), sleep=time.sleep):
    """Decorate a function so that it is called again when it raises.

    The function is called at most ``attempts`` times. Between attempts the decorator
    sleeps ``delay``, then ``delay * factor``, and so on, never longer than
    ``max_delay``. Only exceptions that are instances of ``exceptions`` are retried;
    anything else propagates at once. When the last attempt fails,
    :class:`~tinylib.errors.RetryError` is raised from the last exception.

    ``sleep`` exists so that tests need not wait.
    """
    if not isinstance(attempts, int) or attempts < 1:
        raise UnsupportedOptionError(
            f"Only positive integers are supported when using attempts, not {attempts!r}"
        )
    first = parse_duration(delay).total_seconds()
    cap = parse_duration(max_delay).total_seconds()

    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            delays = backoff.expo(base=factor, factor=first, max_value=cap)
            for attempt in range(1, attempts + 1):
                try:
                    return func(*args, **kwargs)
                except exceptions as exc:
                    if attempt == attempts:
                        raise RetryError(attempts, exc) from exc
                    sleep(next(delays))
            raise AssertionError("unreachable")

        return wrapper

    return decorate
