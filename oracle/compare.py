"""kraft-audit against Kafka's own answers: the golden fixtures (``oracle.fixtures``) audited and compared.

Every fixture's metadata log and ``server.properties`` are ingested as one cluster (``<scenario>@<release>``) and
audited at its release (``--kafka-version`` the release, ``--target-mv`` its line, ``--upgrade-with metadata`` so
that no feature moves), all in one warehouse. Then, for
every (resource, key) Kafka's DescribeConfigs answered — after the restart when the scenario restarted the node
(after a restart "current" values are the static ones, as kraft-audit judges them) — the effective row kraft-audit
wrote is compared with Kafka's value and source. Each pair is one of:

* ``equal``: same value (kraft-audit's ``value_set`` where it has one: the value configured, which DescribeConfigs
  shows) and same source;
* ``sensitive``: Kafka hides the value; the sources are equal;
* ``derived``: the broker uses the value of another key, which kraft-audit names in ``synonym``, while Kafka
  describes the key's own unset state: its null default (``log.retention.ms`` unset: ``log.retention.hours``,
  KafkaConfig's ``logRetentionTimeMillis``; kraft-audit gives the value in use, source ``DEFAULT_CONFIG``), or with
  ``DEFAULT_CONFIG`` its default (a 3.x broker's ``log.message.timestamp.before.max.ms``, whose getter falls back to
  the difference key: kraft-audit's ``value_set``) or the value in use (the topic's bound, LogConfig's default being
  the broker's derived value: kraft-audit's ``value``), where kraft-audit gives the other key's source;
* ``hidden synonym``: same value, but Kafka names as the source its top synonym, a layer whose value a higher
  layer's synonym removed (a static ``log.retention.hours`` under a dynamic ``log.retention.ms``: Kafka shows the
  default 168 with the static source), while kraft-audit names the source Kafka lists with the value shown;
* ``refused layer``: same value, but Kafka names as the source the dynamic layer it stored and did not apply (its
  top synonym), while kraft-audit names where the value in use comes from and reports that layer as a
  ``REJECTED_CONFIG_LAYER`` finding listing the key (a refused layer can also hide a derived value: Kafka then
  shows no value with the layer's source);
* ``no record``: a group or client-metrics subscription nothing in the log names, whose defaults Kafka describes
  as it does for any name (kraft-audit knows only the resources the log has);
* ``either order``: the value Kafka runs after a restart depends on the order it applied the cluster-default and
  per-broker layers (a HashMap's), and kraft-audit names the key in a ``LAYER_ORDER_DEPENDENT`` finding of the
  broker (its effective row is the cluster-default-first outcome);
* ``differs``: anything else (a disagreement to fix, or to show to be Kafka's nondeterminism or a Kafka bug);
* ``missing``: kraft-audit has no row for the pair.

The cluster-default resource (``BROKER:`` with an empty name) is not compared: kraft-audit reports each broker's
effective values, not the stored default layer.

Whether the node started is compared too: audited at its own release, a fixture whose node started must have no
error violation, and one whose node refused to start (its ``server.properties`` fails KafkaConfig) must have one.
A node whose format was refused wrote no metadata log: its fixture is listed with Kafka's error, not audited.

Every upgrade a scenario ran is compared too (``oracle.upgrades``): the log cut just before the controller's
upgrade batch is audited as its own cluster, as the command ran (``--upgrade-with`` its mode), and its
``upgrade_effects`` must be the ConfigRecords of that batch, with no error at the target and no finding refusing
the upgrade; an upgrade Kafka refused must be refused by kraft-audit's audit of the fixture too. And every config change
Kafka's broker refused is simulated on the fixture's state (``oracle.requests``): kraft-audit must flag it.

``python -m oracle.compare [FIXTURES]`` (default ``tests/data/kafka-oracle/scenarios``) prints the counts per
fixture and upgrade and every disagreement; exit 1 when a pair ``differs`` or is ``missing``, a start outcome or an
upgrade or a refused request disagrees.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oracle.fixtures import METADATA_DIR, answers, fixtures, static_files
from oracle.requests import RefusedRequest, change_set, flags, refused_requests
from oracle.requests import report_lines as request_lines
from oracle.runtime import REPO
from oracle.upgrades import (
    KafkaUpgrade,
    RefusedUpgrade,
    UpgradeComparison,
    predicted_changes,
    refusal_findings,
    refused_upgrade_of,
    upgrade_of,
    write_cut,
)
from oracle.upgrades import report_lines as upgrade_lines

FIXTURES = REPO / "tests" / "data" / "kafka-oracle" / "scenarios"
AGREEING = ("equal", "sensitive", "derived", "refused layer", "hidden synonym", "no record", "either order")
# "... does not apply its cluster-default dynamic config layer (3 keys: a, b, c): ..."
_LAYER_KEYS = re.compile(r"\(\d+ keys?: ([^)]*)\)")
# "... the keys whose values differ: a, b; refused by: ..."
_ORDER_KEYS = re.compile(r"the keys whose values differ: (.*?); refused by:")


@dataclass
class Pair:
    """One (resource, key) Kafka described, and what kraft-audit has for it."""

    resource: str
    key: str
    kafka: tuple[Any, Any]  # value, source
    ours: tuple[Any, Any] | None
    verdict: str


@dataclass
class FixtureComparison:
    """The comparison of one scenario × release."""

    cluster: str
    release: str
    started: bool
    startup_error: str | None
    pairs: list[Pair] = field(default_factory=list)
    audited: bool = False  # kraft-audit had a metadata log to audit
    errors: list[str] = field(default_factory=list)  # kraft-audit's error violations at the release, in short

    @property
    def start_agrees(self) -> bool:
        """Kafka's node started ⇔ kraft-audit reports no error at the node's own release (a log that was never
        written cannot be audited: not compared)."""
        return not self.audited or self.started == (not self.errors)

    @property
    def counts(self) -> Counter[str]:
        return Counter(p.verdict for p in self.pairs)

    @property
    def agrees(self) -> bool:
        return self.start_agrees and not self.disagreements

    @property
    def disagreements(self) -> list[Pair]:
        return [p for p in self.pairs if p.verdict not in AGREEING]


def described(result: dict[str, Any]) -> dict[str, Any]:
    """The DescribeConfigs answers a comparison uses: after the restart when there was one."""
    return result.get("describe_after_restart") or result.get("describe") or {}


def refused_keys(findings: Iterable[dict[str, Any]]) -> set[str]:
    """Keys of the layers kraft-audit reports refused (``REJECTED_CONFIG_LAYER`` findings), for one cluster."""
    keys: set[str] = set()
    for finding in findings:
        if finding["kind"] != "REJECTED_CONFIG_LAYER":
            continue
        for listed in _LAYER_KEYS.findall(finding["message"] or ""):
            keys.update(k.strip() for k in listed.split(","))
    return keys


def order_keys(findings: Iterable[dict[str, Any]]) -> set[tuple[str, str]]:
    """``(node id, key)`` of the keys kraft-audit says a broker runs with a value that depends on the order of its
    layers at a restart (``LAYER_ORDER_DEPENDENT`` findings), for one cluster."""
    found: set[tuple[str, str]] = set()
    for finding in findings:
        if finding["kind"] != "LAYER_ORDER_DEPENDENT":
            continue
        for listed in _ORDER_KEYS.findall(finding["message"] or ""):
            found.update((str(finding["resource_name"]), k.strip()) for k in listed.split(","))
    return found


def judge(
    resource: str,
    key: str,
    entry: dict[str, Any],
    rows: list[dict[str, Any]],
    refused: set[str],
    either_order: bool = False,
) -> Pair:
    """Classify one described entry against kraft-audit's effective rows for it (see the module docstring)."""
    kafka = (entry["value"], entry["source"])
    if not rows:
        return Pair(resource, key, kafka, None, "missing")
    # A topic resolved per hosting broker has a row per node; every oracle node is alone in its cluster.
    row = rows[0]
    value = row["value_set"] if row["value_set"] is not None else row["value"]
    ours = (value, row["source"])
    # the broker uses the value of the key kraft-audit names, while Kafka describes this key's own unset state: its
    # null default, or its default value (a broker key) or the value in use (a topic key) with DEFAULT_CONFIG
    synonyms = entry["synonyms"] or []
    other_key = row["synonym"] not in (None, key)
    # (not one of the synonyms Kafka lists for the key: a topic key inheriting its broker synonym is not derived)
    getter_key = other_key and row["synonym"] not in {name for name, _, _ in synonyms}
    derived = (other_key and entry["value"] is None and row["source"] == "DEFAULT_CONFIG") or (
        getter_key and entry["source"] == "DEFAULT_CONFIG" and entry["value"] in (row["value"], row["value_set"])
    )
    same_value = entry["sensitive"] or value == entry["value"] or derived
    stored_not_applied = bool({key, (synonyms or [[key]])[0][0]} & refused)
    # Kafka's source is its top synonym, a layer whose value a higher layer's synonym removed (§5.1 overrideProps):
    # the value shown is the one in use, named with its own source further down the list
    shown_by = next((source for name, value_, source in synonyms if name == key and value_ == entry["value"]), None)
    top = synonyms[0] if synonyms else None
    hidden = top is not None and top[2] == entry["source"] and top[1] != entry["value"] and row["source"] == shown_by
    if not same_value:
        verdict = "differs"
    elif row["source"] == entry["source"]:
        verdict = "sensitive" if entry["sensitive"] else "derived" if derived else "equal"
    elif stored_not_applied:
        verdict = "refused layer"
    elif derived:
        verdict = "derived"
    elif hidden:
        verdict = "hidden synonym"
    else:
        verdict = "differs"
    if verdict == "differs" and either_order:
        verdict = "either order"
    return Pair(resource, key, kafka, ours, verdict)


def compare_fixture(
    cluster: str,
    result: dict[str, Any],
    rows: list[dict[str, Any]],
    findings: list[dict[str, Any]],
    violations: list[dict[str, Any]] | None = None,
) -> FixtureComparison:
    """Every entry Kafka described for one fixture against kraft-audit's rows, findings and violations of its
    cluster (``violations`` None: kraft-audit had no log to audit)."""
    by_pair: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in rows:
        by_pair.setdefault((row["resource_type"], row["resource_name"], row["config_name"]), []).append(row)
    refused = refused_keys(findings)
    by_order = order_keys(findings)
    resources = {(t, n) for t, n, _ in by_pair}
    comparison = FixtureComparison(cluster, result["release"], bool(result["started"]), result.get("startup_error"))
    if violations is not None:
        comparison.audited = True
        comparison.errors = error_list(violations)
    for resource, configs in sorted(described(result).items()):
        resource_type, _, name = resource.partition(":")
        if not name or "error_class" in configs:
            continue
        unknown = (resource_type, name) not in resources
        for key, entry in sorted(configs.items()):
            if unknown and entry["source"] == "DEFAULT_CONFIG":
                # a group or subscription no record names: Kafka describes the defaults of any name
                comparison.pairs.append(Pair(resource, key, (entry["value"], entry["source"]), None, "no record"))
                continue
            rows_of = by_pair.get((resource_type, name, key), [])
            either = resource_type == "BROKER" and (name, key) in by_order
            comparison.pairs.append(judge(resource, key, entry, rows_of, refused, either))
    return comparison


def error_list(violations: list[dict[str, Any]]) -> list[str]:
    """kraft-audit's error violations, in short."""
    return sorted(
        f"{v['resource_type']}:{v['resource_name']} {v['config_name']} ({v['violation_code']})"
        for v in violations
        if v["severity"] == "error"
    )


def release_line(release: str) -> str:
    """``4.2.0`` → ``4.2``: the ``--target-mv`` of that release's production level."""
    return ".".join(release.split(".")[:2])


Audited = dict[str, dict[str, list[dict[str, Any]]]]  # cluster -> table -> rows
_READ = ("effective_configs", "findings", "violations", "upgrade_effects")


def audit_fixtures(
    spark: Any, roots: list[Path], warehouse: Path, cuts: Iterable[tuple[Path, KafkaUpgrade]] = ()
) -> Audited:
    """Ingest every fixture with a metadata log, and every upgrade's cut log (``oracle.upgrades``), into
    ``warehouse``; audit them in one run, each cluster at its own release, target and upgrade form; return per
    cluster its rows of ``_READ``."""

    from jobs import audit, ingest
    from schemas.per_cluster import PerCluster
    from schemas.upgrade_effects import UpgradeWith

    with_logs = [root for root in roots if (root / METADATA_DIR).is_dir()]
    if not with_logs:
        return {}
    cut_logs = list(cuts)
    inputs = [root / METADATA_DIR for root in with_logs] + [log for log, _ in cut_logs]
    static = [f"{root.name}/{node}={path}" for root in with_logs for node, path in static_files(root).items()]
    static += [f"{u.cluster}/={u.server_properties}" for log, u in cut_logs]
    ingest.run(
        spark,
        ingest.IngestSettings(
            inputs=tuple(str(path) for path in inputs), warehouse=str(warehouse), static_configs=tuple(static)
        ),
    )
    # cluster -> (release, mode, target), all audited in one run (each cluster's own --kafka-version, --upgrade-with
    # and --target-mv). The fixtures as they are: `--metadata` (`--release-version` would also turn on features a
    # `--metadata` upgrade left off, ELR, and the effective rows would show what it writes); a cut log as its
    # upgrade ran.
    plans: dict[str, tuple[str, UpgradeWith, str]] = {}
    for root in with_logs:
        release = root.name.rpartition("@")[2]
        plans[root.name] = (release, UpgradeWith.METADATA, release_line(release))
    for _, u in cut_logs:
        plans[u.cluster] = (u.fixture.rpartition("@")[2], UpgradeWith(u.mode), u.target)
    wanted = sorted(plans)
    first = plans[wanted[0]]
    settings = audit.AuditSettings(
        target_mv=PerCluster(first[2], tuple((c, plan[2]) for c, plan in sorted(plans.items()))),
        warehouse=str(warehouse),
        cluster_ids=tuple(wanted),
        kafka_version=PerCluster(first[0], tuple((c, plan[0]) for c, plan in sorted(plans.items()))),
        dq=False,
        upgrade_with=PerCluster(first[1], tuple((c, plan[1]) for c, plan in sorted(plans.items()))),
    )
    audit.run(spark, settings, rules=audit.load_rules(settings))
    return read_back(warehouse, wanted)


def read_back(warehouse: Path, clusters: list[str]) -> Audited:
    """Per cluster, its rows of the ``_READ`` tables, read with delta-rs (a second engine reading what the audit
    wrote): the rows Spark would read, without a Spark scan of each just-written table."""
    from deltalake import DeltaTable

    out: Audited = {name: {table: [] for table in _READ} for name in clusters}
    for table in _READ:
        rows = DeltaTable(str(warehouse / table)).to_pyarrow_table(filters=[("cluster_id", "in", clusters)])
        for row in rows.to_pylist():
            out[row["cluster_id"]][table].append(row)
    return out


def simulate_refused(spark: Any, roots: list[Path], warehouse: Path) -> list[RefusedRequest]:
    """Every broker-side AlterConfigs Kafka refused, simulated by kraft-audit on its fixture's audited state (one
    ``simulate``, each fixture at its release: ``oracle.requests``)."""
    from jobs import audit, simulate
    from schemas.per_cluster import PerCluster

    requests = [(root.name, entry) for root in roots for entry in refused_requests(root.name, answers(root))]
    if not requests:
        return []
    fixtures_of = sorted({fixture for fixture, _ in requests})
    releases = tuple((fixture, fixture.rpartition("@")[2]) for fixture in fixtures_of)
    result = simulate.run(
        spark,
        simulate.SimulateSettings(
            audit=audit.AuditSettings(
                target_mv=PerCluster(release_line(releases[0][1]), tuple((f, release_line(r)) for f, r in releases)),
                warehouse=str(warehouse),
                command="simulate",
                cluster_ids=tuple(fixtures_of),
                kafka_version=PerCluster(releases[0][1], releases),
                dq=False,
            ),
            changes=change_set(requests),
        ),
    )
    compared = []
    for fixture, entry in requests:
        op = entry["op"]
        compared.append(
            RefusedRequest(
                fixture=fixture,
                resource_type=op["type"],
                resource_name=op["name"],
                keys=op["set"],
                error=f"{entry['error_class']}: {entry['error_message']}",
                flagged_as=flags(fixture, entry, result.refused, result.introduced),
            )
        )
    return compared


@dataclass
class Comparisons:
    """Every fixture's comparison, every upgrade's and every refused request's."""

    fixtures: list[FixtureComparison]
    upgrades: list[UpgradeComparison]
    requests: list[RefusedRequest] = field(default_factory=list)
    refused_upgrades: list[RefusedUpgrade] = field(default_factory=list)

    @property
    def agree(self) -> bool:
        parts: list[list[Any]] = [self.fixtures, self.upgrades, self.requests, self.refused_upgrades]
        return all(c.agrees for part in parts for c in part)

    def report(self) -> list[str]:
        """The whole text report."""
        upgrades = upgrade_lines(self.upgrades, self.refused_upgrades)
        return report(self.fixtures) + upgrades + request_lines(self.requests)


def compare(spark: Any, root: Path, warehouse: Path) -> Comparisons:
    """Audit every fixture under ``root`` (and the log before each upgrade) and compare it with Kafka's answers."""
    roots = fixtures(root)
    upgrades = [(fixture, u) for fixture in roots if (u := upgrade_of(fixture, answers(fixture))) is not None]
    cut_root = warehouse.parent / "before-upgrade"
    cuts = [(write_cut(fixture, u, cut_root), u) for fixture, u in upgrades]
    audited = audit_fixtures(spark, roots, warehouse, cuts)
    comparisons = []
    for fixture in roots:
        result = answers(fixture)
        if fixture.name in audited:
            tables = audited[fixture.name]
            comparisons.append(
                compare_fixture(
                    fixture.name, result, tables["effective_configs"], tables["findings"], tables["violations"]
                )
            )
        else:
            comparisons.append(compare_fixture(fixture.name, result, [], []))
    upgrade_comparisons = []
    for _, u in upgrades:
        tables = audited.get(u.cluster) or {table: [] for table in _READ}
        # Kafka accepted it: no error at the target, and no finding refusing it
        refusing = error_list(tables["violations"]) + refusal_findings(tables["findings"])
        upgrade_comparisons.append(UpgradeComparison(u, predicted_changes(tables["upgrade_effects"]), refusing))
    refused_upgrades = []
    for fixture in roots:
        refused = refused_upgrade_of(fixture, answers(fixture))
        # the log holds what the command met (a refusal writes nothing), audited at the release's own line
        if refused is not None and fixture.name in audited:
            if refused.target == release_line(fixture.name.rpartition("@")[2]):
                refused.refusals = refusal_findings(audited[fixture.name]["findings"])
            refused_upgrades.append(refused)
    with_logs = [fixture for fixture in roots if fixture.name in audited]
    requests = simulate_refused(spark, with_logs, warehouse)
    return Comparisons(comparisons, upgrade_comparisons, requests, refused_upgrades)


def report(comparisons: list[FixtureComparison]) -> list[str]:
    """The text report: one line per fixture, then every disagreement."""
    lines = []
    totals: Counter[str] = Counter()
    for c in comparisons:
        start = "started" if c.started else f"did not start ({c.startup_error})"
        audit = "not audited (no metadata log)" if not c.audited else f"{len(c.errors)} error violation(s)"
        lines.append(f"{c.cluster}: Kafka: {start}; kraft-audit: {audit}{'' if c.start_agrees else '  DISAGREE'}")
        if not c.start_agrees:
            lines.extend(f"    error: {e}" for e in c.errors or ["none"])
        if not c.pairs:
            continue
        counts = c.counts
        totals.update(counts)
        shown = ", ".join(f"{counts[v]} {v}" for v in (*AGREEING, "differs", "missing") if counts[v])
        lines.append(f"    {sum(counts.values())} described pairs: {shown}")
        for p in c.disagreements:
            lines.append(
                f"    {p.verdict}: {p.resource} {p.key}: Kafka {p.kafka[0]!r} ({p.kafka[1]}), kraft-audit {p.ours}"
            )
    agreeing = sum(totals[v] for v in AGREEING)
    starts = sum(1 for c in comparisons if c.audited)
    lines.append(
        f"total: {sum(totals.values())} described pairs, {agreeing} agree, {sum(totals.values()) - agreeing} do not;"
        f" started or not: {starts - sum(1 for c in comparisons if not c.start_agrees)} of {starts} audited agree"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m oracle.compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("fixtures", nargs="?", type=Path, default=FIXTURES, help="fixture root")
    args = parser.parse_args(argv)
    if not fixtures(args.fixtures):
        print(f"kafka-oracle: no fixtures under {args.fixtures}", file=sys.stderr)
        return 2
    from jobs.runtime.session import build_session

    spark = build_session(app_name="kraft-audit-oracle")
    with tempfile.TemporaryDirectory(prefix="kraft-audit-oracle-") as work:
        comparisons = compare(spark, args.fixtures, Path(work) / "warehouse")
    print("\n".join(comparisons.report()))
    return 0 if comparisons.agree else 1


if __name__ == "__main__":
    sys.exit(main())
