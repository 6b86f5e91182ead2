"""Mitigation stage: verdicts -> the answer with contradicted claims suppressed, weak ones flagged, and
supported ones cited inline (seed 001 "Flagging & Suppression")."""
