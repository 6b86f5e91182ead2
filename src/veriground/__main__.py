"""`python -m veriground`: the command line, as the `veriground` script runs it."""

import sys

from veriground.cli import main

if __name__ == "__main__":
    sys.exit(main())
