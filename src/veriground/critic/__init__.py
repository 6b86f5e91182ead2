"""Critic mode (seed 004 §3.7): a policy draft -> findings L1-L6 per sentence span, with rationale, tier and
confidence (`critique_text`); lexicons are data files in critic/lexicons/ with their provenance."""

from veriground.critic.pipeline import LABEL_NAMES, CriticBackends, corpus_verifier, critique_text

__all__ = ["LABEL_NAMES", "CriticBackends", "corpus_verifier", "critique_text"]
