"""Loading small INI-style configuration files.

The format is a subset of INI::

    # comments start with '#' or ';'
    [server]
    host = example.org
    timeout = 30s
    max_body = 10MB

Keys before the first section header belong to the section ``"default"``. Values are
strings; the typed getters of :class:`Config` convert them on demand.
"""

from .constants import DEFAULT_ENCODING
from .durations import parse_duration
from .errors import ParseError
from .sizes import parse_size

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class Config:
    """Sections of key/value strings with typed getters."""

    def __init__(self, sections, path=None):
        self.sections = sections
        self.path = path

    def get(self, section, key, default=None):
        """Return the string value of ``key`` in ``section``, or ``default``."""
        return self.sections.get(section, {}).get(key, default)

    def _require(self, section, key):
        value = self.get(section, key)
        if value is None:
            raise KeyError(f"{section}.{key}")
        return value

    def get_int(self, section, key, default=None):
        """Return ``key`` in ``section`` as an int."""
        if self.get(section, key) is None:
            return default
        return int(self._require(section, key))

    def get_bool(self, section, key, default=None):
        """Return ``key`` in ``section`` as a bool (``yes``/``no``, ``on``/``off`` ...)."""
        if self.get(section, key) is None:
            return default
        value = self._require(section, key).lower()
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise ValueError(f"{section}.{key}: not a boolean: {value!r}")

    def get_size(self, section, key, default=None):
        """Return ``key`` in ``section`` as a number of bytes (see :func:`parse_size`)."""
        if self.get(section, key) is None:
            return default
        return parse_size(self._require(section, key))

    def get_duration(self, section, key, default=None):
        """Return ``key`` in ``section`` as a timedelta (see :func:`parse_duration`)."""
        if self.get(section, key) is None:
            return default
        return parse_duration(self._require(section, key))


def parse_config(text, path="<string>"):
    """Parse configuration ``text`` and return a :class:`Config`."""
    sections = {"default": {}}
    current = sections["default"]
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            if not line.endswith("]"):
                raise ParseError(f"{path}:{lineno}: unterminated section header")
            name = line[1:-1].strip()
            current = sections.setdefault(name, {})
            continue
        if "=" in line:
            key, _, value = line.partition("=")
            current[key.strip()] = value.strip()
    return Config(sections, path=path)


def load_config(path, encoding=DEFAULT_ENCODING):
    """Read the configuration file at ``path`` and return a :class:`Config`."""
    with open(path, encoding=encoding) as handle:
        return parse_config(handle.read(), path=str(path))
