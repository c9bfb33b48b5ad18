"""What the generator plants is honest: violations are exactly the bad values in effect, decoys are in the log but
not in effect, secrets are listed only by hash, and a zero rate plants nothing."""

from __future__ import annotations

import hashlib
from collections import Counter

from synthetic.planted import SECRET_MARKER
from tests.synthetic.fleets import default_fleet, fleet
from tests.synthetic.independent_replay import RT_NAMES, bad_values, broker_value_is_bad, final_state, planted_key


def test_planted_violations_are_exactly_the_bad_values_in_effect() -> None:
    planted_total = 0
    for cluster in default_fleet():
        manifest = {planted_key(p.to_dict()) for p in cluster.synth.violations}
        planted_total += len(manifest)
        assert bad_values(final_state(cluster)) == manifest
    assert planted_total >= 20


def test_planted_kinds_cover_every_layer() -> None:
    sources = Counter(p.source for c in fleet(clusters=30) for p in c.synth.violations)
    assert set(sources) == {
        "DYNAMIC_TOPIC_CONFIG",
        "DYNAMIC_BROKER_CONFIG",
        "DYNAMIC_DEFAULT_BROKER_CONFIG",
        "STATIC_BROKER_CONFIG",
        "DYNAMIC_GROUP_CONFIG",
        "DYNAMIC_CLIENT_METRICS_CONFIG",
    }


def test_decoys_are_in_the_log_but_not_in_effect() -> None:
    reasons = set()
    for cluster in fleet(snapshot=False):
        state = final_state(cluster)
        log_values = {
            (RT_NAMES[r.data["resourceType"]], r.data["resourceName"], r.data["name"], r.data["value"])
            for _, records in cluster.segments()
            for r in records
            if r.record_type == "CONFIG_RECORD"
        }
        for decoy in cluster.synth.decoys:
            entry = decoy.to_dict()
            reasons.add(entry["reason"])
            key = (entry["resource_type"], entry["resource_name"], entry["config"], entry["value"])
            assert key in log_values
            resource_type = {v: k for k, v in RT_NAMES.items()}[entry["resource_type"]]
            in_effect = state.configs.get((resource_type, entry["resource_name"]), {}).get(entry["config"])
            assert in_effect != entry["value"], entry
            if entry["reason"] in ("topic_removed", "aborted_transaction"):
                assert entry["resource_name"] not in state.topics.values()
    assert reasons == {"topic_removed", "aborted_transaction", "superseded", "deleted"}


def test_secrets_are_planted_as_dynamic_passwords_and_listed_only_by_hash() -> None:
    for cluster in default_fleet():
        state = final_state(cluster)
        assert len(cluster.synth.secrets) == 1
        entry = cluster.synth.secrets[0].to_dict()
        assert entry["value"] == "[redacted]" and entry["marker"] == SECRET_MARKER
        stored = state.configs[(4, entry["resource_name"])][entry["config"]]
        assert stored.startswith(SECRET_MARKER) and "password" in entry["config"]
        assert hashlib.sha256(stored.encode()).hexdigest() == entry["value_sha256"]


def test_violation_rate_zero_plants_nothing_anywhere_in_the_log() -> None:
    for cluster in fleet(violation_rate=0.0, snapshot=False):
        assert not cluster.synth.violations and not cluster.synth.decoys and not cluster.synth.secrets
        log = [r for _, records in cluster.segments() for r in records]
        assert not bad_values(final_state(cluster))
        for record in log:
            if record.record_type == "CONFIG_RECORD" and record.data["value"] is not None:
                assert SECRET_MARKER not in record.data["value"]
                if record.data["resourceType"] == 4:
                    assert not broker_value_is_bad(record.data["name"], record.data["value"])
            if record.record_type == "REGISTER_BROKER_RECORD":
                for entry in record.data.get("staticConfigs", []):
                    assert not broker_value_is_bad(entry["name"], entry["value"])
