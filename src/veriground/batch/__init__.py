"""Batch verification: a JSONL file of rows -> a JSONL file of reports, on this machine or a Ray cluster.

`run_batch` is the core; `LocalPoolExecutor` (a process pool) and `RayExecutor` (Ray Data actors) run the rows.
"""

from veriground.batch.local_pool import LocalPoolExecutor, default_workers
from veriground.batch.ray_executor import RayExecutor
from veriground.batch.runner import BatchExecutor, BatchSummary, run_batch

__all__ = ["BatchExecutor", "BatchSummary", "LocalPoolExecutor", "RayExecutor", "default_workers", "run_batch"]
