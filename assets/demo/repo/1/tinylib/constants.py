"""Library-wide defaults.

Every module reads its defaults from here so that a change of policy (say, a larger
batch size) is made in one place.
"""

#: Encoding used when a caller does not pass one.
DEFAULT_ENCODING = "utf-8"

#: Field delimiter for CSV files.
DEFAULT_DELIMITER = ","

#: Number of records handed out at a time by the ``iter_*_batches`` functions.
DEFAULT_BATCH_SIZE = 1000

#: Multipliers for decimal (SI) and binary (IEC) size units.
DECIMAL_BASE = 1000
BINARY_BASE = 1024
