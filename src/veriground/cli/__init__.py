"""The `veriground` command line: parses flags, resolves config, calls a stage, prints records.

`main` is the one error boundary: VerigroundError -> one line on stderr and its exit code; no tracebacks.
Each command lives in the module named for it; importing them registers them on `app`.
"""

from __future__ import annotations

import os
import sys

from veriground.cli.app import app

# Registration order is the order `veriground --help` lists the commands in.
# isort: off
from veriground.cli import corpus_commands  # noqa: F401, E402
from veriground.cli import index_command  # noqa: F401, E402
from veriground.cli import verify_command  # noqa: F401, E402
from veriground.cli import verify_batch_command  # noqa: F401, E402
from veriground.cli import critic_command  # noqa: F401, E402
from veriground.cli import ask_command  # noqa: F401, E402
from veriground.cli import serve_command  # noqa: F401, E402
from veriground.cli import models_commands  # noqa: F401, E402
from veriground.cli import setup_commands  # noqa: F401, E402
from veriground.cli import demo_command  # noqa: F401, E402
from veriground.cli import eval_commands  # noqa: F401, E402
from veriground.cli import eval_run_commands  # noqa: F401, E402
from veriground.cli import eval_tool_commands  # noqa: F401, E402
from veriground.cli import eval_critic_command  # noqa: F401, E402
from veriground.cli import train_commands  # noqa: F401, E402
from veriground.cli import calibrate_command  # noqa: F401, E402

# isort: on
from veriground.errors import VerigroundError

EXIT_INTERNAL_ERROR = 70  # sysexits.h EX_SOFTWARE

__all__ = ["app", "main"]


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and turn every error into a message and an exit code."""
    try:
        # Standalone mode: typer prints usage errors itself and exits 2; typer.Exit(n) exits n.
        app(args=argv, prog_name="veriground")
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except VerigroundError as err:
        sys.stderr.write(f"error: {err}\n")
        return err.exit_code
    except Exception as err:  # noqa: BLE001 - the last line of defence against a user-facing traceback
        if os.environ.get("VERIGROUND_DEBUG"):
            raise
        sys.stderr.write(
            f"internal error: {type(err).__name__}: {err}\n"
            "This is a bug in veriground; rerun with VERIGROUND_DEBUG=1 for the traceback and report it.\n"
        )
        return EXIT_INTERNAL_ERROR
    return 0
