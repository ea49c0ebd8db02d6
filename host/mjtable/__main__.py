"""`python -m mjtable`: the same as the `mjtable` command."""

import sys

from .cli import main

sys.exit(main())
