"""Fine-tune a sequence-pair classifier (entailment / neutral / contradiction) from a local encoder, on CPU or a
GPU when present: a plain torch loop over transformers' model, optimiser schedule and seeding.

Deterministic for a seed on one device: batches are drawn by a seeded generator, grouped by length within
windows of LENGTH_WINDOW batches (so padding stays short on 2 cores) and the order of those batches is shuffled.
A 2-way "not_entailment" pair is trained on log P(neutral or contradiction), so it never claims to know which.
Checkpoints (model, optimiser, scheduler, step) go to OUT/checkpoints/step-N every `checkpoint_every` steps and at
each epoch's end; `resume=True` continues from the newest one.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from veriground.errors import BackendError
from veriground.training.nli_mix import LABEL_INDEX, TRAIN_LABELS, TrainPair

MODEL_LABELS = TRAIN_LABELS[:3]
LENGTH_WINDOW = 50
CHECKPOINTS_KEPT = 2

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
    resume: bool = False,
    progress: TrainProgress | None = None,
) -> Path:
    """Train on `pairs`; the final model and tokenizer are saved to OUT/model (returned)."""
    import torch
    import transformers

    transformers.set_seed(settings.seed)
    torch.use_deterministic_algorithms(True, warn_only=True)
    tokenizer = transformers.AutoTokenizer.from_pretrained(settings.base)
    tokenizer.model_max_length = settings.max_length
    model = transformers.AutoModelForSequenceClassification.from_pretrained(
        settings.base,
        num_labels=len(MODEL_LABELS),
        id2label=dict(enumerate(MODEL_LABELS)),
        label2id={label: index for index, label in enumerate(MODEL_LABELS)},
        dtype=torch.float32,
    ).to(settings.device)
    # Tokenised once; each batch is padded from these (the same tensors as tokenising the batch again).
    encoded = tokenizer(
        [p.premise for p in pairs],
        [p.hypothesis for p in pairs],
        truncation="only_first",
        max_length=settings.max_length,
    )
    keys = list(encoded.keys())
    lengths = [len(ids) for ids in encoded["input_ids"]]
    batches_per_epoch = (len(pairs) + settings.batch_size - 1) // settings.batch_size
    total_steps = max(1, round(batches_per_epoch * settings.epochs))
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay)
    scheduler = transformers.get_linear_schedule_with_warmup(
        optimizer, round(total_steps * settings.warmup_fraction), total_steps
    )
    step = 0
    checkpoints = out / "checkpoints"
    if resume and (latest := _latest_checkpoint(checkpoints)) is not None:
        step = _load_checkpoint(latest, model, optimizer, scheduler, settings)
    model.train()
    running = 0.0
    for batch in _schedule(lengths, settings, total_steps)[step:]:
        features = tokenizer.pad([{key: encoded[key][i] for key in keys} for i in batch], return_tensors="pt")
        targets = torch.tensor([LABEL_INDEX[pairs[i].label] for i in batch], device=settings.device)
        logits = model(**{k: v.to(settings.device) for k, v in features.items()}).logits
        loss = mixed_nli_loss(torch, logits, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        running = loss.item() if step == 1 else 0.98 * running + 0.02 * loss.item()
        if progress is not None:
            progress(step, total_steps, running)
        if step % settings.checkpoint_every == 0 or step % batches_per_epoch == 0:
            _save_checkpoint(checkpoints / f"step-{step}", model, tokenizer, optimizer, scheduler, step, settings)
    final = out / "model"
    model.save_pretrained(final)
    tokenizer.save_pretrained(final)
    return final


def mixed_nli_loss(torch: Any, logits: Any, targets: Any) -> Any:
    """Cross-entropy for 3-way targets (0, 1, 2); -log(P(neutral) + P(contradiction)) for target 3."""
    log_probs = torch.log_softmax(logits.float(), dim=-1)
    three_way = targets < 3
    picked = log_probs.gather(1, targets.clamp(max=2).unsqueeze(1)).squeeze(1)
    not_entail = torch.logsumexp(log_probs[:, 1:], dim=-1)
    return -torch.where(three_way, picked, not_entail).mean()


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
    folder: Path, model: Any, tokenizer: Any, optimizer: Any, scheduler: Any, step: int, settings: TrainSettings
) -> None:
    import torch

    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    torch.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}, partial / "state.pt")
    (partial / "trainer.json").write_text(json.dumps({"step": step, "settings": asdict(settings)}, indent=1) + "\n")
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    kept = sorted(folder.parent.glob("step-*[0-9]"), key=lambda p: int(p.name.split("-")[1]))
    for old in kept[:-CHECKPOINTS_KEPT]:
        shutil.rmtree(old, ignore_errors=True)


def _latest_checkpoint(folder: Path) -> Path | None:
    found = sorted(folder.glob("step-*[0-9]"), key=lambda p: int(p.name.split("-")[1])) if folder.is_dir() else []
    return found[-1] if found else None


def _load_checkpoint(folder: Path, model: Any, optimizer: Any, scheduler: Any, settings: TrainSettings) -> int:
    import torch
    from safetensors.torch import load_file

    saved = json.loads((folder / "trainer.json").read_text())
    if saved["settings"] != asdict(settings):
        raise BackendError(
            f"checkpoint {folder} was made with other settings ({saved['settings']}); resume with the same options "
            "or train into a new --out folder"
        )
    model.load_state_dict(load_file(folder / "model.safetensors", device=settings.device))
    state = torch.load(folder / "state.pt", weights_only=True)
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    return int(saved["step"])
