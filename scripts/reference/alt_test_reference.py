#!/usr/bin/env python3
"""Regenerates the alternative annotator test's reference fixture with the Python implementation
of the paper's algorithm in bench/alt_test_reference.py (numpy, scipy, statsmodels).

Writes annotations/tests/fixtures/agreement/alt_test_reference.json: 60 seeded panels (nominal
and ordinal questions, numbered and unnumbered scales, 1 to 6 humans with missing labels, models
from a copy of the consensus to noise, panels too small for the test), each with the expected
tasks used, per human the tasks, win shares, p-value and rejection, and the winning rate,
advantage probability and verdict. The Rust test (annotations/tests/alt_test.rs) checks them to
1e-9.

Usage: pip install -r scripts/reference/requirements.txt
       python3 scripts/reference/alt_test_reference.py
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from alt_test_reference import write_panels  # noqa: E402

COUNT = 60
SEED = 27

if __name__ == "__main__":
    write_panels(ROOT / "annotations" / "tests" / "fixtures" / "agreement" / "alt_test_reference.json", COUNT, SEED)
