import pytest

from tinylib import RetryError, UnsupportedOptionError, retry


class Flaky:
    def __init__(self, failures, exc=ConnectionError):
        self.failures = failures
        self.exc = exc
        self.calls = 0

    def __call__(self):
        self.calls += 1
        if self.calls <= self.failures:
            raise self.exc(f"failure {self.calls}")
        return "ok"


def test_succeeds_after_failures():
    sleeps = []
    flaky = Flaky(failures=2)
    wrapped = retry(attempts=3, delay="100ms", sleep=sleeps.append)(flaky)
    assert wrapped() == "ok"
    assert flaky.calls == 3
    assert sleeps == [0.1, 0.2]


def test_delay_is_capped():
    sleeps = []
    flaky = Flaky(failures=4)
    wrapped = retry(attempts=5, delay="1s", factor=10, max_delay="5s", sleep=sleeps.append)(flaky)
    assert wrapped() == "ok"
    assert sleeps == [1.0, 5.0, 5.0, 5.0]


def test_gives_up_with_retry_error():
    flaky = Flaky(failures=10)
    wrapped = retry(attempts=3, sleep=lambda _: None)(flaky)
    with pytest.raises(RetryError) as info:
        wrapped()
    assert flaky.calls == 3
    assert isinstance(info.value.last_exception, ConnectionError)
    assert info.value.__cause__ is info.value.last_exception


def test_other_exceptions_propagate_at_once():
    flaky = Flaky(failures=1, exc=KeyError)
    wrapped = retry(attempts=3, exceptions=(ConnectionError,), sleep=lambda _: None)(flaky)
    with pytest.raises(KeyError):
        wrapped()
    assert flaky.calls == 1


def test_rejects_zero_attempts():
    with pytest.raises(UnsupportedOptionError, match="Only positive integers are supported when using attempts"):
        retry(attempts=0)
