"""Evidence stage: claims -> the passages to judge them against (corpus or evidence pack) and their best sentences."""
