"""heap.fewer_collections: the young-generation threshold is raised while a verification runs and restored after."""

from __future__ import annotations

import gc
import threading

import pytest

from veriground.heap import MIDDLE_THRESHOLD, YOUNG_THRESHOLD, fewer_collections


@pytest.fixture
def default_thresholds():
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*saved)


def test_raised_inside_and_restored_after(default_thresholds):
    with fewer_collections():
        assert gc.get_threshold() == (YOUNG_THRESHOLD, MIDDLE_THRESHOLD or 10, 10)
    assert gc.get_threshold() == (700, 10, 10)


def test_restored_when_the_body_raises(default_thresholds):
    with pytest.raises(ValueError), fewer_collections():
        raise ValueError("boom")
    assert gc.get_threshold() == (700, 10, 10)


def test_nested_entries_restore_only_when_the_last_leaves(default_thresholds):
    with fewer_collections():
        with fewer_collections():
            pass
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
    assert gc.get_threshold() == (700, 10, 10)


def test_threads_share_one_count(default_thresholds):
    entered, release = threading.Barrier(2), threading.Event()

    def verify() -> None:
        with fewer_collections():
            entered.wait()
            release.wait()

    worker = threading.Thread(target=verify)
    worker.start()
    with fewer_collections():
        entered.wait()
    assert gc.get_threshold()[0] == YOUNG_THRESHOLD  # the worker is still inside
    release.set()
    worker.join()
    assert gc.get_threshold() == (700, 10, 10)


def test_a_switched_off_or_higher_threshold_is_left_alone():
    saved = gc.get_threshold()
    try:
        for thresholds in ((0, 10, 10), (YOUNG_THRESHOLD * 2, 10, 10)):
            gc.set_threshold(*thresholds)
            with fewer_collections():
                assert gc.get_threshold() == thresholds
    finally:
        gc.set_threshold(*saved)


def test_the_engine_verifies_with_fewer_collections(default_thresholds, monkeypatch):
    import veriground.engine as engine

    seen = []
    from veriground.claims import ClaimReading

    monkeypatch.setattr(
        engine, "read_claims", lambda *args, **kwargs: seen.append(gc.get_threshold()) or ClaimReading([], [])
    )
    from veriground.config import load_config
    from veriground.evidence.gather import PackEvidence

    config = load_config()
    engine.verify_text("A claim.", config=config, source=PackEvidence([], config.retrieval), nli=_NoNLI())
    assert seen == [(YOUNG_THRESHOLD, MIDDLE_THRESHOLD or 10, 10)]
    assert gc.get_threshold() == (700, 10, 10)


class _NoNLI:
    name, model_id, checksum = "none", "none", None

    def predict(self, pairs):
        return []


def test_a_threshold_the_host_sets_meanwhile_is_kept(default_thresholds):
    with fewer_collections():
        gc.set_threshold(5_000, 10, 10)
    assert gc.get_threshold() == (5_000, 10, 10)


def test_a_middle_threshold_the_host_sets_meanwhile_is_kept(default_thresholds):
    with fewer_collections():
        gc.set_threshold(YOUNG_THRESHOLD, 50, 10)
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 50, 10)


def test_thresholds_the_host_sets_while_the_collector_was_off_are_kept():
    saved = gc.get_threshold()
    try:
        gc.set_threshold(0, 10, 10)
        with fewer_collections():
            gc.set_threshold(YOUNG_THRESHOLD, 10, 10)
        assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
    finally:
        gc.set_threshold(*saved)
