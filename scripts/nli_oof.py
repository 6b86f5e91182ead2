"""Out-of-fold NLI scores for fitting the calibrated aggregator (cross-fitting, issue 15's calibration).

`veriground calibrate` fits the aggregator on the visible rows of ../shared/datasets, and the shipped NLI model was
trained on those same rows: its scores there are in-sample, surer than on any text it has not seen, so the fitted
aggregator trusts them more than it should on new text. Cross-fitting: K models, each trained with the v2 recipe on
the mix less one fold of pairs (a pair's fold is a function of its hypothesis, the claim: nli_sweep.fold_of), and
each calibration row's NLI pairs scored by the model that never saw that row's claim. The aggregator is then fitted
on those scores (through calibrate's --nli-cache) and reads the shipped model's own scores at run time.

    # here: the NLI pairs calibrate asks for, each with its row's fold
    python scripts/nli_oof.py record --data ../shared/datasets --prepared .gpu
    # on the GPU machine: K fold models in parallel, each scoring its fold's pairs
    python scripts/nli_oof.py run --prepared .gpu --work /tmp/oof --out "$OUT"
    # here: keyed for the shipped model without the pairs' text (what scripts/data/nli-oof keeps), then as
    # calibrate's NLI cache, then calibrate with it
    python scripts/nli_oof.py keep --returned DIR --out scripts/data/nli-oof
    python scripts/nli_oof.py cache --kept scripts/data/nli-oof --out build/oof-cache.jsonl
    veriground calibrate --nli veriground-nli --nli-cache build/oof-cache.jsonl ...
    # a fine-tune of the shipped model shipped in its place (v3 of v2): the same scores keyed for it
    python scripts/nli_oof.py record --data ../shared/datasets --prepared .gpu
    python scripts/nli_oof.py rekey --kept scripts/data/nli-oof --prepared .gpu --temperature 1.2587
    python scripts/nli_oof.py cache --kept scripts/data/nli-oof --out build/oof-cache.jsonl
    veriground calibrate --nli veriground-nli --nli-cache build/oof-cache.jsonl ...
    # the claim-source calibration rows the shipped model never trained on (its mix: nli_sweep prepare), on which
    # calibrate refits the support model's Platt scaling with the shipped model's own scores (--platt-rows)
    python scripts/nli_oof.py unseen --mix .gpu/mix-v2c.jsonl.gz --out scripts/data/nli-oof/platt-rows.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from nli_sweep import fold_of, train_one  # noqa: E402

FOLDS = 4
RECIPE = "v2-lr3-ema"  # the shipped model's recipe
PAIRS_FILE = "oof-pairs.jsonl.gz"
SCORES_FILE = "oof-scores.jsonl.gz"  # what the GPU run returns: [premise, hypothesis, logits] lines
KEPT_FILE = "oof-keyed.jsonl.gz"  # what the repository keeps: a header, then [cache key, logits] lines


def record(data: Path, prepared: Path, rows_per_source: int, limit: int | None) -> None:
    """Verify each calibration row alone, as calibrate does (shipped model, one unit per passage, antonym rows),
    and keep every NLI pair asked for, with the row's fold."""
    from veriground.backends.registry import build_nli
    from veriground.config import load_config
    from veriground.evaluation.calibration_data import calibration_rows
    from veriground.evaluation.calibration_signals import collect_signals

    config = load_config(None, {"models.nli": "veriground-nli", "verification.units_per_passage": 1}, environ={})
    model = build_nli(config.models)
    asked: dict[tuple[str, str], int] = {}
    fold = [0]

    class Recorder:
        name, model_id, checksum = model.name, model.model_id, model.checksum

        def predict(self, pairs):
            for premise, hypothesis in pairs:
                asked.setdefault((premise, hypothesis), fold[0])
            return model.predict(pairs)

    rows = calibration_rows(data, rows_per_source, antonyms=True)[:limit]
    for done, row in enumerate(rows, start=1):
        fold[0] = fold_of(row.text, FOLDS)
        collect_signals([row], config=config, nli=Recorder())
        if done % 500 == 0:
            print(f"rows {done}/{len(rows)}, pairs {len(asked)}", flush=True)
    with gzip.open(prepared / PAIRS_FILE, "wt", encoding="utf-8") as handle:
        for (premise, hypothesis), k in asked.items():
            handle.write(json.dumps([k, premise, hypothesis], ensure_ascii=False) + "\n")
    print(f"{len(rows)} rows, {len(asked)} NLI pairs -> {prepared / PAIRS_FILE}")


def train_fold(k: int, prepared: Path, work: Path, minutes: float, limit: int | None) -> None:
    """Fold model k, then its fold's recorded pairs scored (raw logits) into its folder's oof.jsonl."""
    import torch
    import transformers

    folder = train_one(RECIPE, prepared, work, minutes, limit, fold=(k, FOLDS))
    with gzip.open(prepared / PAIRS_FILE, "rt", encoding="utf-8") as handle:
        pairs = [(p, h) for fold, p, h in map(json.loads, handle) if fold == k]
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(folder).to(device).eval()
    with (folder.parent / "oof.jsonl").open("w", encoding="utf-8") as out, torch.inference_mode():
        for start in range(0, len(pairs), 64):
            batch = pairs[start : start + 64]
            features = tokenizer(
                [p for p, _ in batch], [h for _, h in batch], truncation=True, max_length=256, padding=True,
                return_tensors="pt",
            ).to(device)  # fmt: skip
            for (p, h), logits in zip(batch, model(**features).logits.float().tolist(), strict=True):
                out.write(json.dumps([p, h, logits], ensure_ascii=False) + "\n")


def run(prepared: Path, work: Path, out: Path, minutes: float, limit: int | None) -> None:
    """The K fold models side by side on one GPU; their scores and results into OUT."""
    env = {**os.environ, "CUBLAS_WORKSPACE_CONFIG": ":4096:8", "OMP_NUM_THREADS": "2", "TOKENIZERS_PARALLELISM": "0"}
    extra = [] if limit is None else ["--limit", str(limit)]
    running = [
        subprocess.Popen(
            [sys.executable, __file__, "train-fold", str(k), "--prepared", str(prepared), "--work", str(work)]
            + ["--minutes", str(minutes), *extra],
            env=env,
        )
        for k in range(FOLDS)
    ]
    codes = [process.wait() for process in running]
    results, scored = [], 0
    with gzip.open(out / SCORES_FILE, "wt", encoding="utf-8") as handle:
        for k in range(FOLDS):
            folder = work / f"{RECIPE}-fold{k}"
            if (folder / "result.json").is_file():
                results.append(json.loads((folder / "result.json").read_text()))
            if (folder / "oof.jsonl").is_file():
                for line in (folder / "oof.jsonl").open(encoding="utf-8"):
                    handle.write(line)
                    scored += 1
    summary = {"recipe": RECIPE, "folds": FOLDS, "exit_codes": codes, "scored_pairs": scored, "results": results}
    (out / "oof.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps({k: v for k, v in summary.items() if k != "results"}))
    for result in results:
        print(result["recipe"], "pairs", result["pairs"], "dev", result["score"], "step", result["step"])


def keep(returned: Path, out: Path) -> None:
    """The returned logits keyed as calibrate's cache keys them for the shipped model, without the pairs' text: what
    the repository keeps (scripts/data/nli-oof), so no dataset sentence (SummEdits' news is research-only) is stored
    in it. The first line names the model; the keys hold its checksum, so they serve that model alone."""
    from veriground.backends.nli_cache import NLIScoreCache
    from veriground.backends.shipped_nli import ShippedNLIModel

    model = ShippedNLIModel()
    keys = NLIScoreCache(f"{model.name}\x1f{model.checksum or ''}", max_entries=None)
    out.mkdir(parents=True, exist_ok=True)
    with gzip.open(returned / SCORES_FILE, "rt", encoding="utf-8") as handle:
        rows = [
            (keys.key(premise, hypothesis).hex(), logits) for premise, hypothesis, logits in map(json.loads, handle)
        ]
    with gzip.open(out / KEPT_FILE, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps({"model": model.name, "checksum": model.checksum}) + "\n")
        handle.writelines(json.dumps([key, logits]) + "\n" for key, logits in rows)
    if returned.resolve() != out.resolve():
        (out / "oof.json").write_bytes((returned / "oof.json").read_bytes())
    print(f"{len(rows)} keyed out-of-fold logits -> {out / KEPT_FILE}")


def rekey(kept: Path, prepared: Path, temperature: float | None) -> None:
    """The kept logits keyed anew for the shipped model, when it is a fine-tune of the model they were kept for
    (v3 of v2): the fold models were trained with the older model's recipe, so their scores stand in for the new
    model's as they did for the old one, read at the old model's temperature (kept in the header). The keys hold no
    text, so the pairs come from `record` (PREPARED/oof-pairs.jsonl.gz, rerun here without a GPU)."""
    from veriground.backends.nli_cache import NLIScoreCache
    from veriground.backends.shipped_nli import ShippedNLIModel

    model = ShippedNLIModel()
    with gzip.open(kept / KEPT_FILE, "rt", encoding="utf-8") as handle:
        header = json.loads(handle.readline())
        rows = [json.loads(line) for line in handle]
    old = NLIScoreCache(f"{header['model']}\x1f{header['checksum']}", max_entries=None)
    new = NLIScoreCache(f"{model.name}\x1f{model.checksum or ''}", max_entries=None)
    with gzip.open(prepared / PAIRS_FILE, "rt", encoding="utf-8") as handle:
        renamed = {old.key(p, h).hex(): new.key(p, h).hex() for _, p, h in map(json.loads, handle)}
    missing = sum(key not in renamed for key, _ in rows)
    if missing:
        raise SystemExit(f"{missing} of {len(rows)} kept scores match no recorded pair; rerun record first")
    temperature = header.get("temperature") or temperature
    if temperature is None:
        raise SystemExit(f"give --temperature: the one in {header['model']}'s manifest, whose scores these are")
    scores_of = header.get("scores_of") or {"model": header["model"], "checksum": header["checksum"]}
    with gzip.open(kept / KEPT_FILE, "wt", encoding="utf-8") as handle:
        document = {"model": model.name, "checksum": model.checksum, "scores_of": scores_of, "temperature": temperature}
        handle.write(json.dumps(document) + "\n")
        handle.writelines(json.dumps([renamed[key], logits]) + "\n" for key, logits in rows)
    print(f"{len(rows)} out-of-fold logits re-keyed for {model.name} (scores of {scores_of['model']}, T {temperature})")


def cache(kept: Path, out: Path) -> None:
    """The kept logits as calibrate's --nli-cache for the shipped model, its temperature applied, so calibrate reads
    the out-of-fold scores where it would have asked the shipped model. Refused for another model than the kept
    scores name (their keys would match nothing and calibrate would quietly score everything itself)."""
    import numpy as np

    from veriground.backends.sequence_pair_nli import finish_scores
    from veriground.backends.shipped_nli import ShippedNLIModel

    model = ShippedNLIModel()
    entail_at, contradict_at = model.label_map.entail_index, model.label_map.contradict_index
    with gzip.open(kept / KEPT_FILE, "rt", encoding="utf-8") as handle, out.open("w", encoding="utf-8") as file:
        header = json.loads(handle.readline())
        if (header["model"], header["checksum"]) != (model.name, model.checksum):
            raise SystemExit(
                f"{kept / KEPT_FILE} holds scores for {header}, not the shipped {model.name} ({model.checksum}); "
                "rerun scripts/nli_oof.py record/run/keep for this model"
            )
        # Re-keyed scores (`rekey`) are read at the temperature of the model whose recipe the fold models followed.
        temperature = float(header.get("temperature") or model.temperature)
        written = 0
        for key, logits in map(json.loads, handle):
            scaled = np.asarray(logits, dtype=np.float64) / temperature
            probabilities = np.exp(scaled - scaled.max())
            probabilities /= probabilities.sum()
            entail, contradict = float(probabilities[entail_at]), float(probabilities[contradict_at])
            file.write(json.dumps({"key": key, **finish_scores(entail, contradict).model_dump()}) + "\n")
            written += 1
    print(f"{written} out-of-fold scores -> {out}")


def unseen(data: Path, mix: Path, out: Path, rows_per_source: int) -> None:
    """The ids of the claim-source calibration rows whose claim is no hypothesis of the training mix `mix` (the
    shipped model's: its pairs never showed it these claims), with the mix's SHA-256 and counts, as a JSON file."""
    import hashlib

    from nli_sweep import _read_pairs

    from veriground.evaluation.calibration_data import CLAIM_SOURCES, calibration_rows

    seen = {pair.hypothesis.strip() for pair in _read_pairs(mix)}
    rows = calibration_rows(data, rows_per_source, antonyms=True)
    chosen = [row for row in rows if row.group in CLAIM_SOURCES and row.text.strip() not in seen]
    counts: dict[str, int] = {}
    for row in chosen:
        counts[row.group or ""] = counts.get(row.group or "", 0) + 1
    document = {
        "about": "Claim-source calibration rows the shipped NLI never trained on: `calibrate --platt-rows` fits the "
        "support model's Platt scaling on them with the NLI's own scores (scripts/nli_oof.py unseen).",
        "mix": mix.name,
        "mix_sha256": hashlib.sha256(mix.read_bytes()).hexdigest(),
        "mix_hypotheses": len(seen),
        "by_source": dict(sorted(counts.items())),
        "rows": [row.id for row in chosen],
    }
    out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(f"{len(chosen)} of {sum(row.group in CLAIM_SOURCES for row in rows)} claim-source rows unseen -> {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    r = commands.add_parser("record")
    r.add_argument("--data", type=Path, default=Path("..") / "shared" / "datasets")
    r.add_argument("--rows-per-source", type=int, default=500)
    t = commands.add_parser("train-fold")
    t.add_argument("fold", type=int)
    n = commands.add_parser("run")
    n.add_argument("--out", type=Path, required=True)
    for command in (r, t, n):
        command.add_argument("--prepared", type=Path, default=Path(".gpu"))
        command.add_argument("--limit", type=int, default=None, help="First N rows or pairs only (a rehearsal).")
    for command in (t, n):
        command.add_argument("--work", type=Path, required=True)
        command.add_argument("--minutes", type=float, default=6.0)
    k = commands.add_parser("keep")
    k.add_argument("--returned", type=Path, required=True)
    k.add_argument("--out", type=Path, default=Path("scripts") / "data" / "nli-oof")
    e = commands.add_parser("rekey")
    e.add_argument("--kept", type=Path, default=Path("scripts") / "data" / "nli-oof")
    e.add_argument("--prepared", type=Path, default=Path(".gpu"))
    e.add_argument("--temperature", type=float, default=None, help="The kept scores' model's (its manifest's).")
    c = commands.add_parser("cache")
    c.add_argument("--kept", type=Path, default=Path("scripts") / "data" / "nli-oof")
    c.add_argument("--out", type=Path, required=True)
    u = commands.add_parser("unseen")
    u.add_argument("--mix", type=Path, required=True, help="The shipped model's training mix (nli_sweep prepare).")
    u.add_argument("--data", type=Path, default=Path("..") / "shared" / "datasets")
    u.add_argument("--rows-per-source", type=int, default=500)
    u.add_argument("--out", type=Path, default=Path("scripts") / "data" / "nli-oof" / "platt-rows.json")
    args = parser.parse_args()
    if args.command == "unseen":
        unseen(args.data, args.mix, args.out, args.rows_per_source)
    elif args.command == "record":
        record(args.data, args.prepared, args.rows_per_source, args.limit)
    elif args.command == "train-fold":
        train_fold(args.fold, args.prepared, args.work, args.minutes, args.limit)
    elif args.command == "run":
        run(args.prepared, args.work, args.out, args.minutes, args.limit)
    elif args.command == "keep":
        keep(args.returned, args.out)
    elif args.command == "rekey":
        rekey(args.kept, args.prepared, args.temperature)
    else:
        cache(args.kept, args.out)


if __name__ == "__main__":
    main()
