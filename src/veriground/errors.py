"""One exception tree for veriground: every error a user can meet derives from VerigroundError.

    VerigroundError
    ├── ConfigError            a config key, env var or CLI flag has a bad value
    ├── InputFileError         a file given to ingest cannot be read or parsed
    │   └── NothingToIngest    a well-formed file with no text to cite (a redirect stub): skipped
    ├── InputTextError         text given to verify or ask is empty or malformed
    │   └── InputTooLargeError over a configured size or claim-count limit (HTTP 413)
    ├── StoreError             the corpus directory is missing, locked or damaged
    ├── NotFoundError          a document or passage id that the corpus does not hold
    ├── BackendError           a model backend failed to load or to answer
    └── UnitConversionError    pint could not read or normalise a unit found in text

Messages say what failed with the offending value, what is valid, and one fix.
"""

from __future__ import annotations

from pathlib import Path


class VerigroundError(Exception):
    """Root of every error veriground raises on purpose."""

    exit_code = 1


class ConfigError(VerigroundError):
    """A configuration value is invalid; `key` is the dotted config key whose value is bad, when one is."""

    exit_code = 2

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


class InputFileError(VerigroundError):
    """A file could not be ingested; names the file, the problem and a fix."""

    exit_code = 1

    def __init__(self, path: Path | str, problem: str, fix: str | None = None) -> None:
        self.path = str(path)
        self.problem = problem
        self.fix = fix
        message = f"{self.path}: {problem}"
        if fix:
            message += f" ({fix})"
        super().__init__(message)


class NothingToIngest(InputFileError):
    """A valid file that holds no citable text; ingest skips it instead of failing."""


class InputTextError(VerigroundError):
    """Text to verify that cannot be verified as given (empty, or over a configured size)."""

    exit_code = 1


class InputTooLargeError(InputTextError):
    """Input over a configured limit; the message names the config key that raises it."""


class StoreError(VerigroundError):
    """The corpus store cannot be opened or written."""

    exit_code = 3


class NotFoundError(VerigroundError):
    """An id that the corpus does not hold."""

    exit_code = 4


class BackendError(VerigroundError):
    """A model backend failed to load or to answer (missing weights, out of memory, bad output)."""

    exit_code = 5


class UnitConversionError(VerigroundError):
    """pint could not read or normalise a unit found in the text."""
