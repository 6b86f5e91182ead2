"""veriground: cited-or-silent answers and claim-by-claim verification against a local corpus.

The public Python API is the names in `__all__`; everything else is internal and may change. They are imported
on first use (PEP 562), so `import veriground` stays as fast as it was when it held only `__version__`:

    from veriground import Workspace

    with Workspace.open("my-corpus") as ws:
        ws.ingest(["notes/"])
        answer = ws.ask("What is kinetic energy?")
"""

# Not `from typing import TYPE_CHECKING`: importing typing would triple the cost of `import veriground`.
# Type checkers read this name the same way (PEP 484 tools treat it as true).
TYPE_CHECKING = False

__version__ = "0.1.0"

# Public name -> the module that defines it. tests/test_public_api.py pins this list: removing a name is a
# breaking change and must fail a test.
_EXPORTS = {
    "Workspace": "veriground.workspace",
    "Config": "veriground.config",
    "load_config": "veriground.config",
    # The records the Workspace returns and takes.
    "VerificationReport": "veriground.schema",
    "ClaimReport": "veriground.schema",
    "GroundedAnswer": "veriground.schema",
    "IngestReport": "veriground.schema",
    "Claim": "veriground.schema",
    "EvidenceChunk": "veriground.schema",
    "EvidencePack": "veriground.schema",
    "PackPassage": "veriground.schema",
    # The error tree (errors.py): catch VerigroundError for every error veriground raises on purpose.
    "VerigroundError": "veriground.errors",
    "ConfigError": "veriground.errors",
    "InputFileError": "veriground.errors",
    "InputTextError": "veriground.errors",
    "InputTooLargeError": "veriground.errors",
    "StoreError": "veriground.errors",
    "NotFoundError": "veriground.errors",
    "BackendError": "veriground.errors",
}

__all__ = [
    "BackendError",
    "Claim",
    "ClaimReport",
    "Config",
    "ConfigError",
    "EvidenceChunk",
    "EvidencePack",
    "GroundedAnswer",
    "IngestReport",
    "InputFileError",
    "InputTextError",
    "InputTooLargeError",
    "NotFoundError",
    "PackPassage",
    "StoreError",
    "VerificationReport",
    "VerigroundError",
    "Workspace",
    "__version__",
    "load_config",
]

if TYPE_CHECKING:
    from veriground.config import Config, load_config
    from veriground.errors import (
        BackendError,
        ConfigError,
        InputFileError,
        InputTextError,
        InputTooLargeError,
        NotFoundError,
        StoreError,
        VerigroundError,
    )
    from veriground.schema import (
        Claim,
        ClaimReport,
        EvidenceChunk,
        EvidencePack,
        GroundedAnswer,
        IngestReport,
        PackPassage,
        VerificationReport,
    )
    from veriground.workspace import Workspace
else:
    # Defined only at run time: a type checker that saw a module __getattr__ would accept any misspelt name.

    def __getattr__(name: str) -> object:
        """Import a public name from its module on first access and keep it, so the next access is a lookup."""
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module 'veriground' has no attribute {name!r}")
        value = getattr(__import__(module, fromlist=[name]), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
