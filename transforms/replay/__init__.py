"""Replay bronze metadata records into silver cluster state (see ``transforms.replay.state``)."""

from transforms.replay.findings import with_run_columns
from transforms.replay.state import ReplayResult, replay_state

__all__ = ["ReplayResult", "replay_state", "with_run_columns"]
