"""`python -m veriground.cli`."""

import sys

from veriground.cli import main

sys.exit(main())
