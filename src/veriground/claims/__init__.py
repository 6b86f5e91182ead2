"""Claims stage: answer text -> atomic, typed Claim records with exact spans and their cited ids."""

from veriground.claims.citations import parse_citations
from veriground.claims.claim_types import classify_claim
from veriground.claims.extract import EXTRACTION_METHOD, ClaimReading, extract_claims, read_claims

__all__ = ["EXTRACTION_METHOD", "ClaimReading", "classify_claim", "extract_claims", "parse_citations", "read_claims"]
