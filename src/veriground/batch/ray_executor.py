"""verify-batch on a Ray cluster: rows -> (seq, record) pairs from Ray Data `map_batches` over a pool of actors,
each holding one RowVerifier (models loaded once per actor). Pairs come back in completion order.

`ray` is an optional extra (`pip install 'veriground[ray]'`); it is imported only here, on first use.
Every node needs veriground installed at the same version, and the corpus at the same absolute path.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any

from veriground.batch.rows import RowTask
from veriground.config import Config
from veriground.errors import BackendError, ConfigError

RAY_EXTRA_HINT = "pip install 'veriground[ray]'"
# `--ray local` starts a Ray instance on this machine for the run; anything else is handed to ray.init(address=...):
# "auto" (the cluster this machine is a node of), "ray://head:10001" (Ray Client), "head:6379".
LOCAL_ADDRESS = "local"
# Rows per map_batches call: one call's overhead (~1 ms) stays small next to ~10 ms a row.
BATCH_ROWS = 16
# Rows held by the driver at once (~200 bytes each): each window is one Ray Data dataset, so 10^7 rows never sit in
# memory together; each window starts its actors afresh, so it is large enough that loading the models stays small
# next to the window's work.
WINDOW_ROWS = 200_000


class RayExecutor:
    """Runs rows on Ray: connects to `address` (or reuses the Ray this process already initialised) and sizes the
    actor pool to `workers`, by default one actor per CPU of the cluster."""

    name = "ray"

    def __init__(self, address: str | None = None, workers: int | None = None) -> None:
        self.address = address
        self.workers = workers

    def run(self, config: Config, tasks: Iterable[RowTask]) -> Iterator[tuple[int, str]]:
        ray = import_ray()
        started = self._connect(ray)
        logging.getLogger("ray.data").setLevel(logging.ERROR)  # INFO lines per dataset would bury the CLI's output
        try:
            from ray.data import ActorPoolStrategy, DataContext

            DataContext.get_current().enable_progress_bars = False  # the CLI draws its own bar
            size = self.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
            config_data = config.model_dump(mode="json")
            iterator = iter(tasks)
            while window := list(islice(iterator, WINDOW_ROWS)):
                dataset = ray.data.from_items(
                    [{"seq": task.seq, "task": task.to_json()} for task in window],
                    override_num_blocks=max(1, min(len(window) // BATCH_ROWS, size * 4)),
                )
                results = dataset.map_batches(
                    RayRowVerifier,
                    fn_constructor_kwargs={"config_data": config_data},
                    batch_size=BATCH_ROWS,
                    batch_format="numpy",
                    compute=ActorPoolStrategy(size=min(size, len(window))),
                    num_cpus=1,
                )
                for batch in results.iter_batches(batch_size=None, batch_format="numpy"):
                    for seq, record in zip(batch["seq"], batch["record"], strict=True):
                        yield int(seq), str(record)
        finally:
            if started:
                ray.shutdown()

    def _connect(self, ray: Any) -> bool:
        """Initialise Ray unless this process already has; True when it did (and so shuts it down after)."""
        if ray.is_initialized():
            return False
        logging.getLogger("ray").setLevel(logging.WARNING)
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.WARNING}
        if self.address == LOCAL_ADDRESS:
            options.update(address="local", num_cpus=self.workers)
        else:
            options["address"] = self.address
        try:
            ray.init(**options)
        except (ConnectionError, ValueError, RuntimeError) as err:
            raise ConfigError(
                f"--ray {self.address}: cannot connect to a Ray cluster ({' '.join(str(err).split())[:200]}); "
                "pass --ray local for one on this machine, or the head's address (ray://HOST:10001, HOST:6379)"
            ) from None
        return True


class RayRowVerifier:
    """A Ray Data actor: builds one RowVerifier when it starts, then turns each batch of rows into records."""

    def __init__(self, config_data: dict) -> None:
        from veriground.batch.row_verifier import RowVerifier

        self._verifier = RowVerifier(Config.model_validate(config_data))

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        tasks = [RowTask.from_json(str(item)) for item in batch["task"]]
        records = [self._verifier.verify(task) for task in tasks]
        return {"seq": batch["seq"], "record": np.array(records, dtype=object)}


def import_ray() -> Any:
    """The ray module, or a BackendError naming the extra to install."""
    try:
        import ray
        import ray.data  # noqa: F401 - Ray Data is the `data` extra of ray
    except ImportError:
        raise BackendError(f"--ray needs Ray, which is not installed; {RAY_EXTRA_HINT}") from None
    return ray
