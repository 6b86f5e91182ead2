"""veriground: cited-or-silent answers and claim-by-claim verification against a local corpus."""

__version__ = "0.1.0"
