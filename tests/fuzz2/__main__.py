"""`python tests/fuzz2 ...`: a fuzz2 run from the command line (campaign.py)."""

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS), str(TESTS.parent)]  # oracle.py, and vectorizer from this checkout

from fuzz2.campaign import main  # noqa: E402 - after the path is set

sys.exit(main())
