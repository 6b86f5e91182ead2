"""Verdicts: signal values -> status, reason code and the rule that fired."""
