"""`python -m bench [PART] [OPTIONS]`: the benches' entry point (bench/main.py)."""

import sys

from bench.main import main

sys.exit(main())
