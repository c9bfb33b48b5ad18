"""The fuzz campaign in a bounded form (600 seeded inputs per target, seconds): no exception escapes a decoder or
the row conversion, every line and byte is accounted for, no good record is lost, no planted secret reaches a row,
no budget is passed and no input takes over a CPU second; issue 58's attack classes (crafted resync regions, record
bombs, CR-only text) are targets of their own.
The full campaign (``make fuzz``, ``python -m tests.fuzz``) runs the same checks on many more inputs."""

from __future__ import annotations

import pytest

from tests.fuzz.campaign import TARGETS, run_campaign

INPUTS_PER_TARGET = 600
SEED = 20_16


@pytest.mark.parametrize("target", sorted(TARGETS), ids=sorted(TARGETS))
def test_bounded_fuzzing_finds_no_crash_leak_loss_or_unaccounted_input(target: str) -> None:
    report = run_campaign(INPUTS_PER_TARGET, SEED, targets=[target])

    assert report.inputs[target] == INPUTS_PER_TARGET
    assert report.ok, report.examples
