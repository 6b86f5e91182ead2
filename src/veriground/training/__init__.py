"""Training the shipped NLI model: data mix, synthetic pairs, the training loop, calibration and export."""
