"""`veriground train nli`: the training mix -> a fine-tuned NLI cross-encoder -> temperature scaling on the dev
pairs -> the int8 ONNX folder veriground ships (OUT/shipped), with every figure in OUT/training.json."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from veriground.cli.app import app

if TYPE_CHECKING:
    from veriground.training.nli_trainer import TrainSettings

T = TypeVar("T")

train_app = typer.Typer(help="Train veriground's own models (needs the models extra).", no_args_is_help=True)
app.add_typer(train_app, name="train")


@train_app.command("nli")
def train_nli(
    out: Annotated[Path, typer.Option("--out", help="Folder for checkpoints, the model and OUT/shipped.")],
    data: Annotated[
        Path,
        typer.Option("--data", envvar="VERIGROUND_DATASETS", help="The shared datasets folder (training mix source)."),
    ] = Path("..") / "shared" / "datasets",
    base: Annotated[str, typer.Option("--base", help="Encoder: minilm (bundled) or a folder.")] = "minilm",
    epochs: Annotated[float, typer.Option("--epochs", min=0.01, help="Passes over the training pairs.")] = 1.5,
    seed: Annotated[int, typer.Option("--seed", help="Seed of initialisation and batch order.")] = 13,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1)] = 32,
    learning_rate: Annotated[float, typer.Option("--learning-rate", min=1e-7)] = 5e-5,
    max_length: Annotated[int, typer.Option("--max-length", min=32, max=512, help="Tokens per pair.")] = 256,
    eval_every: Annotated[int, typer.Option("--eval-every", min=1, help="Steps between dev evaluations.")] = 200,
    patience: Annotated[
        int, typer.Option("--patience", min=1, help="Stop after this many dev evaluations without improvement.")
    ] = 4,
    ema_decay: Annotated[
        float | None,
        typer.Option(
            "--ema-decay", min=0.5, max=0.99999, help="Score, keep and ship a moving average of the weights (0.999)."
        ),
    ] = None,
    time_limit: Annotated[
        float | None,
        typer.Option("--time-limit-minutes", min=1, help="Stop at a checkpoint after this long (--resume goes on)."),
    ] = None,
    max_pairs: Annotated[
        int | None, typer.Option("--max-pairs", min=8, help="Train on a seeded sample of N pairs (a quick run).")
    ] = None,
    device: Annotated[str | None, typer.Option("--device", help="cpu or cuda (default: cuda when present).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue from the newest checkpoint in OUT.")] = False,
) -> None:
    """Fine-tune an NLI classifier on the public training mix and synthetic pairs; calibrate; export int8 ONNX."""
    from veriground.backends.model_files import resolve_model, use_offline_hub
    from veriground.evaluation.benchmarks import check_datasets_dir, select_benchmarks
    from veriground.training.calibration import fit_temperature
    from veriground.training.nli_mix import build_mix
    from veriground.training.nli_trainer import TrainSettings, pick_device, train_classifier
    from veriground.training.ship import score_logits, write_shipped_folder

    use_offline_hub(allow_download=False)
    check_datasets_dir(data, select_benchmarks(["mnli", "fever-symmetric", "wice", "begin", "summedits"]))
    _, base_folder = resolve_model(base, allow_download=False)
    mix = build_mix(data)
    train = _sample(mix.train, max_pairs, seed)
    settings = TrainSettings(
        base=str(base_folder),
        epochs=epochs,
        batch_size=batch_size,
        learning_rate=learning_rate,
        max_length=max_length,
        seed=seed,
        device=pick_device(device),
        eval_every=eval_every,
        patience=patience,
        ema_decay=ema_decay,
    )
    sys.stderr.write(_counts_table(mix.counts()))
    sys.stderr.write(f"training on {len(train)} pairs ({len(mix.dev)} dev) on {settings.device}\n")
    started = time.monotonic()
    with _bar() as advance:
        model_folder = train_classifier(
            train,
            settings,
            out,
            dev=mix.dev,
            resume=resume,
            time_limit_s=None if time_limit is None else time_limit * 60,
            progress=advance,
            log=lambda line: sys.stderr.write(line + "\n"),
        )
    minutes = round((time.monotonic() - started) / 60, 1)
    report = fit_temperature(score_logits(model_folder, mix.dev, device=settings.device), mix.dev)
    facts = {
        "command": _command_line(out, data, base, settings, max_pairs, time_limit),
        "settings": {**settings.__dict__, "base": base},
        "train_pairs": len(train),
        "trained_from": model_folder.name,
        "best": _best_step(model_folder),
        "minutes_this_run": minutes,
        "mix": mix.counts(),
        "calibration": report.to_json(),
    }
    shipped = write_shipped_folder(model_folder, out / "shipped", temperature=report.temperature, facts=facts)
    (out / "training.json").write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    sys.stdout.write(
        f"temperature {report.temperature} (dev NLL {report.nll_before:.4f} -> {report.nll_after:.4f}; "
        f"entailment ECE {report.ece_entailment_before} -> {report.ece_entailment_after})\n"
        f"shipped folder: {shipped}\n"
    )


def _sample(pairs: list[T], max_pairs: int | None, seed: int) -> list[T]:
    """A seeded sample of `max_pairs` of `pairs` in their order (all of them when None or fewer)."""
    import random

    if max_pairs is None or max_pairs >= len(pairs):
        return pairs
    return sorted(random.Random(seed).sample(pairs, max_pairs), key=pairs.index)


def _command_line(
    out: Path, data: Path, base: str, settings: TrainSettings, max_pairs: int | None, time_limit: float | None
) -> str:
    """The `veriground train nli` command that reruns this training, as training.json records it."""
    return shlex.join(
        ["veriground", "train", "nli", "--out", str(out), "--data", str(data), "--base", base]
        + ["--epochs", str(settings.epochs), "--seed", str(settings.seed), "--batch-size", str(settings.batch_size)]
        + ["--learning-rate", str(settings.learning_rate), "--max-length", str(settings.max_length)]
        + ["--eval-every", str(settings.eval_every), "--patience", str(settings.patience)]
        + (["--ema-decay", str(settings.ema_decay)] if settings.ema_decay is not None else [])
        + (["--max-pairs", str(max_pairs)] if max_pairs is not None else [])
        + (["--time-limit-minutes", str(time_limit)] if time_limit is not None else [])
    )


def _counts_table(counts: dict[str, dict[str, int]]) -> str:
    """Pairs per source and label, one line per source, with totals per label."""
    labels = sorted({label for row in counts.values() for label in row})
    lines = ["source".ljust(18) + "".join(label.rjust(24) for label in labels)]
    for source, row in counts.items():
        lines.append(source.ljust(18) + "".join(str(row.get(label, 0)).rjust(24) for label in labels))
    totals = [sum(row.get(label, 0) for row in counts.values()) for label in labels]
    lines.append("total".ljust(18) + "".join(str(total).rjust(24) for total in totals))
    return "\n".join(lines) + "\n"


def _best_step(model_folder: Path) -> dict | None:
    path = model_folder / "best.json"
    return json.loads(path.read_text()) if path.is_file() else None


class _bar:
    """A rich progress bar of training steps with the running loss, on stderr."""

    def __enter__(self):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn("train"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("loss {task.fields[loss]:.4f}"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
        )
        self._progress.__enter__()
        self._task = self._progress.add_task("train", total=None, loss=0.0)
        return self.advance

    def advance(self, step: int, total: int, loss: float) -> None:
        self._progress.update(self._task, completed=step, total=total, loss=loss)
        if not self._progress.console.is_terminal and (step % 25 == 0 or step == total):
            sys.stderr.write(f"step {step}/{total} loss {loss:.4f}\n")  # a log file gets plain lines
            sys.stderr.flush()

    def __exit__(self, *exc: object) -> None:
        self._progress.__exit__(*exc)
