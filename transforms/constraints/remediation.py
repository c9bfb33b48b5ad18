"""Remediation: the concrete fix for a violation, as text and as a structured change for ``simulate``.

``fix_value()`` is a value that satisfies the failing rule (NULL when none is obvious), ``remediation_change()`` the
fix as one ``REMEDIATION_CHANGE`` struct (``schemas.violations``) — a DELETE, or a SET of ``fix_value``; NULL when
neither is known — and ``remediation_text()`` the fix as text, never NULL. Its commands use
``BOOTSTRAP_PLACEHOLDER`` (``<bootstrap>``) in place of the cluster's bootstrap servers.

``remediation_change`` and ``remediation_text`` read a ``fix_value`` column: select ``fix_value()`` into it
first (computing it once keeps the generated expressions small).

Input columns: ``resource_type``, ``resource_name``, ``config_name``, ``value_source``, ``scope`` (the BROKER
key's dynamic scope: ``read-only`` | ``per-broker`` | ``cluster-wide``; NULL = unknown, treated as read-only),
``code``, ``v_elems`` (list elements or NULL), ``expr_fix_value`` (the derived fix of an expression,
``expr_fixes``), ``fallback_ok`` / ``fallback_value`` / ``fallback_source`` (whether deleting the override passes,
see ``evaluate``), and RULE_INFO's ``constraint_kind``, ``rule_bound_a``, ``rule_bound_b``, ``rule_fix_value``,
``rule_values``, ``remediation_hint``, ``expr_text``, ``rule_configs_text``.

DELETE or SET: when ``fallback_ok`` is true the fix deletes the override at the layer it comes from (the topic /
group override, the per-broker or the cluster-wide dynamic value) — the value below passes, so nothing new is
pinned; otherwise it sets ``fix_value`` at the layer below.

Where the fix goes (Kafka precedence, docs/kafka-semantics.md §5):

* a topic / group / client-metrics / client value is changed on that entity with ``kafka-configs.sh``;
* a BROKER value from the per-broker dynamic layer (DYNAMIC_BROKER_CONFIG) must be fixed at that layer —
  ``--entity-name <id>`` — because it overrides everything below; the text also offers ``--delete-config``
  for the case where the cluster default or server.properties value below it is valid (which the effective
  table alone cannot tell);
* a value from the cluster-wide dynamic default (DYNAMIC_DEFAULT_BROKER_CONFIG) is fixed with
  ``--entity-default``;
* a static or default value of a dynamic key is overridden dynamically at its scope (``--entity-default`` for
  cluster-wide keys, ``--entity-name <id>`` for per-broker keys);
* a read-only key (or one of unknown scope) is changed in that broker's server.properties, followed by a
  rolling restart (``layer: static`` in the structured change; ``simulate`` models it on the static layer).

An expression without a derivable fix gets no structured change and a text naming the expression and its keys.
"""

from __future__ import annotations

from typing import Final

from pyspark.sql import Column
from pyspark.sql import functions as F

from schemas.kafka_vocabulary import AlterConfigOpType, ConfigSource, ResourceType

__all__ = ["BOOTSTRAP_PLACEHOLDER", "fix_value", "remediation_change", "remediation_text"]

BOOTSTRAP_PLACEHOLDER: Final = "<bootstrap>"
VALUE_PLACEHOLDER: Final = "<valid value>"
_KAFKA_CONFIGS: Final = f"kafka-configs.sh --bootstrap-server {BOOTSTRAP_PLACEHOLDER} --alter "


def fix_value() -> Column:
    """A value that satisfies the failing rule, derived from the rule and the current value; NULL if unknown.

    Bounds for range rules, the allowed elements for `in` on lists, the value without forbidden / duplicate /
    empty elements for list rules, the single allowed value of a one-value `in`.
    """
    code = F.col("code")
    elems = F.col("v_elems")
    has_elems = elems.isNotNull()
    list_fixes = (
        F.when(code == "NOT_ALLOWED", F.array_join(F.array_intersect(elems, F.col("rule_values")), ","))
        .when(code == "FORBIDDEN", F.array_join(F.array_except(elems, F.col("rule_values")), ","))
        .when(code == "DUPLICATES", F.array_join(F.array_distinct(elems), ","))
        .when(code == "EMPTY_ELEMENT", F.array_join(F.array_remove(elems, ""), ","))
    )
    kind = F.col("constraint_kind")
    bound = F.when(kind.isin("min", "between") & (code != "ABOVE_MAX"), F.col("rule_bound_a")).when(
        kind.isin("max", "between"), F.col("rule_bound_b")
    )
    return F.coalesce(F.when(has_elems, list_fixes), bound, F.col("rule_fix_value"), F.col("expr_fix_value"))


def _deletes() -> Column:
    return F.coalesce(F.col("fallback_ok"), F.lit(False))


def _config_value(value: Column) -> Column:
    """kafka-configs.sh needs square brackets around a value that contains commas."""
    return F.when(value.contains(","), F.concat(F.lit("["), value, F.lit("]"))).otherwise(value)


def _client_entity(name: Column) -> Column:
    """``user=alice,client-id=app`` -> ``--entity-type users --entity-name alice --entity-type clients ...``."""
    user = F.regexp_extract(name, r"(?:^|,)user=([^,]*)", 1)
    client = F.regexp_extract(name, r"(?:^|,)client-id=([^,]*)", 1)
    has_user = name.rlike(r"(^|,)user=")
    has_client = name.rlike(r"(^|,)client-id=")

    def part(kind: str, entity: Column, present: Column) -> Column:
        named = F.when(entity == "<default>", F.lit("--entity-default")).otherwise(
            F.concat(F.lit("--entity-name "), entity)
        )
        return F.when(present, F.concat(F.lit(f"--entity-type {kind} "), named, F.lit(" "))).otherwise(F.lit(""))

    return F.concat(part("users", user, has_user), part("clients", client, has_client))


def _broker_target() -> tuple[Column, Column, Column]:
    """(layer, resource_name, is_entity_default) for a BROKER fix, per value source and dynamic scope."""
    source, scope = F.col("value_source"), F.col("scope")
    from_node_layer = source == ConfigSource.DYNAMIC_BROKER_CONFIG
    from_default_layer = source == ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG
    is_read_only = scope.isNull() | (scope == "read-only")
    use_default = from_default_layer | (~from_node_layer & (scope == "cluster-wide"))
    layer = F.when(from_node_layer | from_default_layer, F.lit("dynamic")).when(is_read_only, F.lit("static"))
    layer = layer.otherwise(F.lit("dynamic"))
    name = F.when(use_default & (layer == "dynamic"), F.lit("")).otherwise(F.col("resource_name"))
    return layer, name, use_default & (layer == "dynamic")


def remediation_change() -> Column:
    """The fix as one operation in the ``simulate`` changes format: DELETE of the override when its fallback
    passes, else SET of ``fix_value``; NULL when neither is known."""
    value = F.col("fix_value")
    deletes = _deletes()
    layer, broker_name, _ = _broker_target()
    is_broker = F.col("resource_type") == ResourceType.BROKER
    # the controller's view of a topic is changed by the topic's own override
    is_controller_view = F.col("resource_type") == ResourceType.CONTROLLER_TOPIC
    change = F.struct(
        F.when(is_controller_view, F.lit(ResourceType.TOPIC)).otherwise(F.col("resource_type")).alias("resource_type"),
        F.when(is_broker, broker_name).otherwise(F.col("resource_name")).alias("resource_name"),
        F.when(is_broker, layer).otherwise(F.lit("dynamic")).alias("layer"),
        F.when(deletes, F.lit(AlterConfigOpType.DELETE)).otherwise(F.lit(AlterConfigOpType.SET)).alias("op"),
        F.col("config_name").alias("key"),
        F.when(~deletes, value).alias("value"),
    )
    return F.when(deletes | value.isNotNull(), change)


def remediation_text() -> Column:
    """A copy-paste fix: a kafka-configs.sh command at the right scope, or a server.properties change."""
    key = F.col("config_name")
    value = F.coalesce(F.col("fix_value"), F.lit(VALUE_PLACEHOLDER))
    deletes = _deletes()
    add = F.concat(F.lit("--add-config "), key, F.lit("="), _config_value(value))
    fallback = F.when(
        F.col("fallback_value").isNotNull(),
        F.concat(F.lit(" "), F.col("fallback_value"), F.lit(" from "), F.col("fallback_source")),
    ).otherwise(F.lit(" the value below it"))
    delete = F.concat(
        F.lit("--delete-config "), key, F.lit(" (the override is removed;"), fallback, F.lit(" applies and passes)")
    )
    name = F.col("resource_name")
    rtype = F.col("resource_type")
    layer, _, entity_default = _broker_target()

    def command(entity: Column) -> Column:
        return F.concat(F.lit(_KAFKA_CONFIGS), entity, F.when(deletes, delete).otherwise(add))

    broker_entity = F.when(entity_default, F.lit("--entity-type brokers --entity-default ")).otherwise(
        F.concat(F.lit("--entity-type brokers --entity-name "), name, F.lit(" "))
    )
    node_override_note = F.concat(
        F.lit(" (this per-broker dynamic value overrides the cluster default and server.properties; if those are"),
        F.lit(" valid, remove it instead with --delete-config "),
        key,
        F.lit(")"),
    )
    fails_too = F.concat(
        F.lit(" (deleting the override instead would fall back to"),
        F.when(
            F.col("fallback_value").isNotNull(),
            F.concat(
                F.lit(" "),
                F.col("fallback_value"),
                F.lit(" from "),
                F.col("fallback_source"),
                F.lit(", which does not pass either)"),
            ),
        ).otherwise(F.lit(" the brokers' values, which do not pass either)")),
    )
    static_fix = F.concat(
        F.lit("set "),
        key,
        F.lit("="),
        value,
        F.lit(" in server.properties of broker "),
        name,
        F.lit(" and restart it (rolling restart); "),
        key,
        F.lit(" is read-only and cannot be changed dynamically"),
    )
    broker_fix = (
        F.when(layer == "static", static_fix)
        .when(
            (F.col("value_source") == ConfigSource.DYNAMIC_BROKER_CONFIG) & ~deletes & F.col("fallback_ok").isNull(),
            F.concat(command(broker_entity), node_override_note),
        )
        .otherwise(command(broker_entity))
    )
    text = (
        F.when(rtype == ResourceType.BROKER, broker_fix)
        .when(
            rtype.isin(ResourceType.TOPIC, ResourceType.CONTROLLER_TOPIC),
            command(F.concat(F.lit("--entity-type topics --entity-name "), name, F.lit(" "))),
        )
        .when(
            rtype == ResourceType.GROUP,
            command(F.concat(F.lit("--entity-type groups --entity-name "), name, F.lit(" "))),
        )
        .when(
            rtype == ResourceType.CLIENT_METRICS,
            command(F.concat(F.lit("--entity-type client-metrics --entity-name "), name, F.lit(" "))),
        )
        .when(rtype == ResourceType.CLIENT, command(_client_entity(name)))
        .otherwise(F.concat(F.lit("change "), key, F.lit(" to "), value))
    )
    text = F.concat(text, F.when(F.col("fallback_ok") == F.lit(False), fails_too).otherwise(F.lit("")))
    unknown_expr_fix = (F.col("constraint_kind") == "expr") & F.col("fix_value").isNull()
    expr_text = F.concat(
        F.lit("change "),
        F.coalesce(F.col("rule_configs_text"), key),
        F.lit(" so that `"),
        F.col("expr_text"),
        F.lit("` holds (no single value follows from the expression), e.g. "),
        text,
    )
    hint = F.when(F.col("remediation_hint").isNotNull(), F.concat(F.lit(". Hint: "), F.col("remediation_hint")))
    return F.concat(F.when(unknown_expr_fix, expr_text).otherwise(text), F.coalesce(hint, F.lit("")))
