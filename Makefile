# The two set-up lines of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test bench lint clean browser serve eval nli-model accuracy calibrate

# Reinstall whenever pyproject.toml changes; the stamp records which extras are in.
$(VENV)/.installed-core: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,models,eval]'
	touch $@ $(VENV)/.installed-core

demo: $(VENV)/.installed-core
	$(BIN)/veriground demo

test: $(VENV)/.installed-dev browser
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts
	$(BIN)/mypy
	$(BIN)/python -m pytest

# The browser tests drive Debian's Chromium; skipped (and not installed) with VERIGROUND_SKIP_BROWSER=1.
browser:
	@if [ "$$VERIGROUND_SKIP_BROWSER" != 1 ] && [ -z "$$VERIGROUND_CHROMIUM" ]; then scripts/install-chromium; fi

serve: $(VENV)/.installed-core
	test -f .veriground-demo/corpus.sqlite3 || $(BIN)/veriground demo
	$(BIN)/veriground serve --corpus .veriground-demo

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/bench_ingest_search.py
	$(BIN)/python bench/bench_verify.py
	$(BIN)/python bench/eval_fever_symmetric.py
	$(BIN)/python bench/bench_nli.py
	$(BIN)/python bench/bench_serve.py

# The demo golden-set run: metrics, predictions, manifest and figures in runs/<run id>/ (the last line says where).
eval: $(VENV)/.installed-dev
	$(BIN)/veriground eval run --runs-dir runs

# Retrain the shipped NLI model (recipe v2-lr3-ema of scripts/nli_sweep.py; numbers: nli_model/MODEL_CARD.md) into
# build/nli/shipped: about 5 minutes on a GPU, some hours on 2 CPU cores. Ship it (copy build/nli/shipped/* into
# src/veriground/nli_model/, replacing the one tracked copy, then `make calibrate`) only if it wins the card's tables.
nli-model: $(VENV)/.installed-dev
	$(BIN)/python scripts/nli_sweep.py prepare --out build/nli-prepared
	nice -n 10 $(BIN)/python scripts/nli_sweep.py sweep --prepared build/nli-prepared --work build/nli-sweep \
		--out build/nli-returned --recipes v2-lr3-ema --minutes 600
	$(BIN)/python scripts/nli_sweep.py ship --prepared build/nli-prepared --returned build/nli-returned --out build/nli
	@echo "compare: veriground eval bench --limit 300 --nli build/nli/shipped"

# The visible dev suite per NLI backend and aggregator, one table (held-out rows only); the defaults must win it.
accuracy: $(VENV)/.installed-dev
	$(BIN)/python bench/bench_accuracy.py

# Refit the shipped calibrated aggregators (both NLI backends) from ../shared/datasets, with reliability diagrams.
# The shipped model's entry is fitted on out-of-fold NLI scores (scripts/nli_oof.py: 4 fold models trained on a GPU,
# their scores kept in scripts/data/nli-oof), not on the model's own scores of rows it was trained on.
# --no-frames: the out-of-fold scores were taken on the dev claims as written ("Yes, ..." and all); read without their
# frames, 90 of them would be scored by the shipped model, which trained on those rows.
calibrate: $(VENV)/.installed-dev
	$(BIN)/python scripts/nli_oof.py cache --kept scripts/data/nli-oof --out build/oof-cache.jsonl
	$(BIN)/veriground calibrate --nli veriground-nli --units-per-passage 1 --antonym-rows --nli-cache build/oof-cache.jsonl --platt-rows scripts/data/nli-oof/platt-rows.json --no-frames --out src/veriground/verdicts/aggregator.json --figures results/figures
	$(BIN)/veriground calibrate --nli lexical --units-per-passage 1 --out src/veriground/verdicts/aggregator.json --figures results/figures

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests bench

clean:
	rm -rf $(VENV) .veriground .veriground-demo bench/out test-artifacts
