import pytest

from tinylib import TTLCache, UnsupportedOptionError


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


@pytest.fixture
def clock():
    return FakeClock()


def test_get_and_set():
    cache = TTLCache()
    cache.set("a", 1)
    assert cache.get("a") == 1
    assert cache.get("b") is None
    assert cache.get("b", 42) == 42
    assert "a" in cache and "b" not in cache


def test_evicts_least_recently_used():
    cache = TTLCache(maxsize=2)
    cache.set("a", 1)
    cache.set("b", 2)
    cache.get("a")
    cache.set("c", 3)
    assert "a" in cache
    assert "b" not in cache
    assert len(cache) == 2


def test_entries_expire(clock):
    cache = TTLCache(ttl="5m", clock=clock)
    cache.set("a", 1)
    clock.advance(299)
    assert cache.get("a") == 1
    clock.advance(1)
    assert cache.get("a") is None
    assert len(cache) == 0


def test_ttl_accepts_seconds(clock):
    cache = TTLCache(ttl=10, clock=clock)
    cache.set("a", 1)
    clock.advance(10)
    assert "a" not in cache


def test_delete_and_clear():
    cache = TTLCache()
    cache.set("a", 1)
    cache.set("b", 2)
    assert cache.delete("a") is True
    assert cache.delete("a") is False
    cache.clear()
    assert len(cache) == 0


@pytest.mark.parametrize("maxsize", [0, -1, 1.5])
def test_rejects_bad_maxsize(maxsize):
    with pytest.raises(UnsupportedOptionError, match="Only positive integers are supported when using maxsize"):
        TTLCache(maxsize=maxsize)


def test_repr(clock):
    cache = TTLCache(maxsize=4, ttl="90s", clock=clock)
    cache.set("a", 1)
    assert repr(cache) == "TTLCache(maxsize=4, ttl=90s, entries=1)"
