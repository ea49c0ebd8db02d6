"""`python -m mjtable`: the same as the `mjtable` command."""

import sys

from mjtable.cli import main

sys.exit(main())
