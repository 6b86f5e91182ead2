"""Fine-tune a sequence-pair classifier (entailment / neutral / contradiction) from a local encoder, on CPU or a
GPU when present: a plain torch loop over transformers' model, optimiser schedule and seeding.

Deterministic for a seed on one device: batches are drawn by a seeded generator, grouped by length within
windows of LENGTH_WINDOW batches (so padding stays short on 2 cores) and the order of those batches is shuffled.
A 2-way "not_entailment" pair is trained on log P(neutral or contradiction), so it never claims to know which.
Checkpoints (model, optimiser, scheduler, step) go to OUT/checkpoints/step-N every `checkpoint_every` steps and at
each epoch's end; `resume=True` continues from the newest one.

Class weights (inverse label frequency, clipped to CLASS_WEIGHT_RANGE) keep the larger labels from drowning the
rest. With dev pairs, the model is scored on them every `eval_every` steps (macro mean over sources of the mixed
NLL, so the easy synthetic pairs do not decide alone); the best so far is kept in OUT/best and returned, and
training stops early after `patience` evaluations without improvement, or when a wall-clock limit is reached (at a
checkpoint, so `--resume` can go on later).

With `ema_decay`, an exponential moving average of the weights (Polyak averaging; the decay warms up as
min(decay, (1 + step) / (10 + step))) is what gets scored on the dev pairs, saved and returned: on small data the
dev score of the raw weights jumps by several hundredths between evaluations, so the best raw evaluation is partly
luck, while the average moves smoothly. The average is kept in checkpoints, so a resumed run goes on with it.

With `keep_layers` and `distil_weight`, a smaller student is distilled from the start model (distillation.py).
"""

from __future__ import annotations

import json
import random
import shutil
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from veriground.errors import BackendError
from veriground.training.distillation import distillation_loss, keep_layers
from veriground.training.train_pairs import LABEL_INDEX, TRAIN_LABELS, TrainPair
from veriground.training.weight_average import WeightAverage, averaged

MODEL_LABELS = TRAIN_LABELS[:3]
LENGTH_WINDOW = 50
CHECKPOINTS_KEPT = 2
CLASS_WEIGHT_RANGE = (0.5, 2.0)  # inverse-frequency weights, clipped: a tiny class must not dominate either
DEV_BATCH = 64
DEV_SCORE_PER_SOURCE = 80  # dev pairs per source scored during training: a minute, not several, on 2 busy cores
BEST = "best"

# steps done, steps in total, running loss
TrainProgress = Callable[[int, int, float], None]


@dataclass(frozen=True)
class TrainSettings:
    base: str  # the encoder folder
    epochs: float = 1.5
    batch_size: int = 32
    learning_rate: float = 5e-5
    weight_decay: float = 0.01
    warmup_fraction: float = 0.06
    max_length: int = 128
    seed: int = 13
    checkpoint_every: int = 200
    device: str = "cpu"
    eval_every: int = 200
    patience: int = 4
    ema_decay: float | None = None  # e.g. 0.999: score, keep and return the moving average of the weights
    keep_layers: tuple[int, ...] | None = None  # e.g. (0, 2, 4, 5): the start model's encoder layers kept, in order
    distil_weight: float = 0.0  # share of the loss taken from the teacher's logits (needs teacher_logits)
    distil_temperature: float = 2.0


def pick_device(requested: str | None) -> str:
    import torch

    if requested:
        return requested
    return "cuda" if torch.cuda.is_available() else "cpu"


def train_classifier(
    pairs: Sequence[TrainPair],
    settings: TrainSettings,
    out: Path,
    *,
    dev: Sequence[TrainPair] = (),
    resume: bool = False,
    time_limit_s: float | None = None,
    progress: TrainProgress | None = None,
    log: Callable[[str], object] | None = None,  # its return value is ignored (sys.stderr.write fits)
    teacher_logits: Any = None,  # (pairs, 3) logits, an array or nested lists, for distillation
) -> Path:
    """Train on `pairs`; returns the model folder to ship: OUT/best (best dev score) with dev pairs, else OUT/model."""
    import torch
    import transformers

    if settings.distil_weight > 0 and (teacher_logits is None or len(teacher_logits) != len(pairs)):
        raise BackendError(
            f"distil_weight {settings.distil_weight} needs the teacher's logits for each of the {len(pairs)} pairs"
        )
    teacher = torch.as_tensor(teacher_logits, dtype=torch.float32) if settings.distil_weight > 0 else None

    started = time.monotonic()
    transformers.set_seed(settings.seed)
    torch.use_deterministic_algorithms(True, warn_only=True)
    tokenizer, model = _load_encoder(settings)
    # Tokenised once; each batch is padded from these (the same tensors as tokenising the batch again).
    encoded = _encode_pairs(tokenizer, pairs, settings.max_length)
    keys = list(encoded.keys())
    weights = torch.tensor(class_weights(pairs), dtype=torch.float32, device=settings.device)
    batches_per_epoch = (len(pairs) + settings.batch_size - 1) // settings.batch_size
    total_steps = max(1, round(batches_per_epoch * settings.epochs))
    optimizer, scheduler = _optimizer_and_schedule(model, settings, total_steps)
    checkpoints, best_path = out / "checkpoints", out / BEST
    step, best = 0, {"step": 0, "score": float("inf"), "since": 0}
    average = WeightAverage(model, settings.ema_decay) if settings.ema_decay else None
    if resume and (latest := _latest_checkpoint(checkpoints)) is not None:
        step = _load_checkpoint(latest, model, optimizer, scheduler, settings, average)
        best = json.loads((best_path / "best.json").read_text()) if (best_path / "best.json").is_file() else best
    model.train()
    running = 0.0
    lengths = [len(ids) for ids in encoded["input_ids"]]
    for batch in _schedule(lengths, settings, total_steps)[step:]:
        features = tokenizer.pad([{key: encoded[key][i] for key in keys} for i in batch], return_tensors="pt")
        targets = torch.tensor([LABEL_INDEX[pairs[i].label] for i in batch], device=settings.device)
        soft = None if teacher is None else teacher[batch]
        loss = _train_step(model, optimizer, scheduler, features, targets, weights, settings, soft)
        step += 1
        if average is not None:
            average.update(model, step)
        running = loss if step == 1 else 0.98 * running + 0.02 * loss
        if progress is not None:
            progress(step, total_steps, running)
        out_of_time = time_limit_s is not None and time.monotonic() - started > time_limit_s
        stopped = False
        if dev and (step % settings.eval_every == 0 or step == total_steps or out_of_time):
            with averaged(model, average):
                best = _score_on_dev(model, tokenizer, dev, settings, step, best, best_path, log)
            stopped = best["since"] >= settings.patience
        if stopped or out_of_time or step % settings.checkpoint_every == 0 or step % batches_per_epoch == 0:
            _save_checkpoint(
                checkpoints / f"step-{step}", model, tokenizer, optimizer, scheduler, step, settings, average
            )
        if stopped or out_of_time:
            if log is not None:
                log(f"stopped at step {step}: " + ("no dev improvement" if stopped else "time limit reached"))
            break
    if dev and best_path.is_dir():
        return best_path
    final = out / "model"
    with averaged(model, average):
        _save_model(final, model, tokenizer)
    return final


def _load_encoder(settings: TrainSettings) -> tuple[Any, Any]:
    """(tokenizer, a fresh MODEL_LABELS classification head on the encoder at settings.base) on settings.device."""
    import torch
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(settings.base)
    tokenizer.model_max_length = settings.max_length
    model = transformers.AutoModelForSequenceClassification.from_pretrained(
        settings.base,
        num_labels=len(MODEL_LABELS),
        id2label=dict(enumerate(MODEL_LABELS)),
        label2id={label: index for index, label in enumerate(MODEL_LABELS)},
        dtype=torch.float32,
    )
    if settings.keep_layers is not None:
        keep_layers(model, settings.keep_layers)
    return tokenizer, model.to(settings.device)


def _encode_pairs(tokenizer: Any, pairs: Sequence[TrainPair], max_length: int) -> Any:
    """Token ids (and masks) of every (premise, hypothesis) pair, unpadded; only the premise is cut to fit."""
    return tokenizer(
        [p.premise for p in pairs], [p.hypothesis for p in pairs], truncation="only_first", max_length=max_length
    )


def _optimizer_and_schedule(model: Any, settings: TrainSettings, total_steps: int) -> tuple[Any, Any]:
    """AdamW with a linear schedule: warm-up over settings.warmup_fraction of the steps, then decay to 0."""
    import torch
    import transformers

    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay)
    scheduler = transformers.get_linear_schedule_with_warmup(
        optimizer, round(total_steps * settings.warmup_fraction), total_steps
    )
    return optimizer, scheduler


def _train_step(
    model: Any,
    optimizer: Any,
    scheduler: Any,
    features: Any,
    targets: Any,
    weights: Any,
    settings: TrainSettings,
    teacher: Any = None,
) -> float:
    """One optimiser step on one padded batch (gradients clipped to norm 1); returns the batch loss. With the
    teacher's logits for the batch, the label loss is mixed with the distillation loss (settings.distil_weight)."""
    import torch

    logits = model(**{k: v.to(settings.device) for k, v in features.items()}).logits
    loss = mixed_nli_loss(torch, logits, targets, weights)
    if teacher is not None:
        distilled = distillation_loss(torch, logits, teacher.to(settings.device), settings.distil_temperature)
        loss = (1 - settings.distil_weight) * loss + settings.distil_weight * distilled
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return float(loss.item())


def _score_on_dev(
    model: Any,
    tokenizer: Any,
    dev: Sequence[TrainPair],
    settings: TrainSettings,
    step: int,
    best: dict[str, Any],
    best_path: Path,
    log: Callable[[str], object] | None,
) -> dict[str, Any]:
    """Score the model on the dev pairs; a new best is saved to `best_path`. Returns the best record (step, score,
    evaluations since it), which is also written to best_path/best.json so a resumed run knows it."""
    score = dev_score(model, tokenizer, dev, settings)
    model.train()
    if score < best["score"]:
        best = {"step": step, "score": score, "since": 0}
        _save_model(best_path, model, tokenizer)
    else:
        best = {**best, "since": best["since"] + 1}
    (best_path / "best.json").write_text(json.dumps(best) + "\n")
    if log is not None:
        log(f"step {step}: dev score {score:.4f} (best {best['score']:.4f} at step {best['step']})")
    return best


def class_weights(pairs: Sequence[TrainPair]) -> list[float]:
    """One weight per training label (TRAIN_LABELS order): inverse frequency, mean 1 over present labels, clipped."""
    counts = Counter(pair.label for pair in pairs)
    present = [label for label in TRAIN_LABELS if counts[label]]
    raw = {label: len(pairs) / (len(present) * counts[label]) for label in present}
    low, high = CLASS_WEIGHT_RANGE
    return [round(min(high, max(low, raw.get(label, 1.0))), 4) for label in TRAIN_LABELS]


def dev_score(model: Any, tokenizer: Any, dev: Sequence[TrainPair], settings: TrainSettings) -> float:
    """Macro mean over sources (all synthetic edits count as one source) of the mixed NLL on the dev pairs (the
    first DEV_SCORE_PER_SOURCE of each source)."""
    import numpy as np
    import torch

    from veriground.training.calibration import mixed_nll

    model.eval()
    dev = _per_source(dev, DEV_SCORE_PER_SOURCE)
    with torch.inference_mode():
        order = sorted(range(len(dev)), key=lambda i: len(dev[i].premise) + len(dev[i].hypothesis))
        logits = np.zeros((len(dev), len(MODEL_LABELS)))
        for start in range(0, len(order), DEV_BATCH):
            chunk = order[start : start + DEV_BATCH]
            features = tokenizer(
                [dev[i].premise for i in chunk],
                [dev[i].hypothesis for i in chunk],
                truncation="only_first",
                max_length=settings.max_length,
                padding=True,
                return_tensors="pt",
            )
            out = model(**{k: v.to(settings.device) for k, v in features.items()}).logits.float().cpu().numpy()
            logits[chunk] = out
    sources: dict[str, list[int]] = {}
    for index, pair in enumerate(dev):
        sources.setdefault(pair.source.split(":")[0], []).append(index)
    targets = np.array([LABEL_INDEX[pair.label] for pair in dev])
    return float(np.mean([mixed_nll(logits[members], targets[members]) for members in sources.values()]))


def _per_source(pairs: Sequence[TrainPair], limit: int) -> list[TrainPair]:
    """The first `limit` pairs of each source (all synthetic edits one source), in input order."""
    seen: Counter[str] = Counter()
    kept = []
    for pair in pairs:
        source = pair.source.split(":")[0]
        if seen[source] < limit:
            seen[source] += 1
            kept.append(pair)
    return kept


def _save_model(folder: Path, model: Any, tokenizer: Any) -> None:
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)


def mixed_nli_loss(torch: Any, logits: Any, targets: Any, weights: Any = None) -> Any:
    """Cross-entropy for 3-way targets (0, 1, 2); -log(P(neutral) + P(contradiction)) for target 3; each pair
    weighted by its label's weight (`weights`, indexed by target) when given, as a weighted mean."""
    log_probs = torch.log_softmax(logits.float(), dim=-1)
    three_way = targets < 3
    picked = log_probs.gather(1, targets.clamp(max=2).unsqueeze(1)).squeeze(1)
    not_entail = torch.logsumexp(log_probs[:, 1:], dim=-1)
    losses = -torch.where(three_way, picked, not_entail)
    if weights is None:
        return losses.mean()
    pair_weights = weights[targets]
    return (losses * pair_weights).sum() / pair_weights.sum()


def _schedule(lengths: Sequence[int], settings: TrainSettings, total_steps: int) -> list[list[int]]:
    """Every step's batch of pair indices, fixed by the seed: per epoch a shuffle, then length-sorted windows."""
    rng = random.Random(settings.seed)
    batches: list[list[int]] = []
    while len(batches) < total_steps:
        order = list(range(len(lengths)))
        rng.shuffle(order)
        window = settings.batch_size * LENGTH_WINDOW
        epoch: list[list[int]] = []
        for start in range(0, len(order), window):
            chunk = sorted(order[start : start + window], key=lambda i: (lengths[i], i))
            epoch.extend(chunk[k : k + settings.batch_size] for k in range(0, len(chunk), settings.batch_size))
        rng.shuffle(epoch)
        batches.extend(epoch)
    return batches[:total_steps]


def _save_checkpoint(
    folder: Path,
    model: Any,
    tokenizer: Any,
    optimizer: Any,
    scheduler: Any,
    step: int,
    settings: TrainSettings,
    average: WeightAverage | None = None,
) -> None:
    import torch

    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    state = {"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}
    if average is not None:
        state["ema"] = average.state()
    torch.save(state, partial / "state.pt")
    (partial / "trainer.json").write_text(json.dumps({"step": step, "settings": asdict(settings)}, indent=1) + "\n")
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    kept = sorted(folder.parent.glob("step-*[0-9]"), key=lambda p: int(p.name.split("-")[1]))
    for old in kept[:-CHECKPOINTS_KEPT]:
        shutil.rmtree(old, ignore_errors=True)


def _latest_checkpoint(folder: Path) -> Path | None:
    found = sorted(folder.glob("step-*[0-9]"), key=lambda p: int(p.name.split("-")[1])) if folder.is_dir() else []
    return found[-1] if found else None


def _load_checkpoint(
    folder: Path, model: Any, optimizer: Any, scheduler: Any, settings: TrainSettings, average: WeightAverage | None
) -> int:
    import torch
    from safetensors.torch import load_file

    saved = json.loads((folder / "trainer.json").read_text())
    # checkpoints from before a setting existed lack it; JSON keeps keep_layers as a list
    defaults = {"ema_decay": None, "keep_layers": None, "distil_weight": 0.0, "distil_temperature": 2.0}
    if {**defaults, **saved["settings"]} != json.loads(json.dumps(asdict(settings))):
        raise BackendError(
            f"checkpoint {folder} was made with other settings ({saved['settings']}); resume with the same options "
            "or train into a new --out folder"
        )
    model.load_state_dict(load_file(folder / "model.safetensors", device=settings.device))
    state = torch.load(folder / "state.pt", weights_only=True)
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    if average is not None:
        average.load(state.get("ema"))
    return int(saved["step"])
