"""Signal families, one module each: claims and evidence → NLI, coverage, numeric and citation signal records
(tier 1), and the LLM judge's support and conflict judgements (tier 2, seed 004 §3.6)."""

from veriground.signals.citation import check_citations
from veriground.signals.coverage import compute_coverage
from veriground.signals.llm_judge import judge_conflicts, judge_support
from veriground.signals.numeric import compute_numeric

__all__ = ["check_citations", "compute_coverage", "compute_numeric", "judge_conflicts", "judge_support"]
