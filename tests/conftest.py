"""Makes the helper modules of this directory (gpu.py, subproc.py) importable from the test files."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
