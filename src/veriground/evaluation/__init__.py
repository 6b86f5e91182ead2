"""Evaluation: golden sets, labelled pairs, public benchmark adapters and their metrics (`veriground eval`)."""
