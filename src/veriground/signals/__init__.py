"""Signal families, one module each: claims and evidence → NLI, coverage, numeric and citation signal records."""

from veriground.signals.citation import check_citations
from veriground.signals.coverage import compute_coverage
from veriground.signals.nli import compute_nli
from veriground.signals.numeric import compute_numeric

__all__ = ["check_citations", "compute_coverage", "compute_nli", "compute_numeric"]
