"""Remediation: the concrete fix for a violation, as text and as a structured change for ``simulate``.

``fix_value()`` is a value that satisfies the failing rule (NULL when none is obvious), ``remediation_change()`` the
fix as one ``REMEDIATION_CHANGE`` struct (``schemas.violations``) — a DELETE, or a SET of ``fix_value``; NULL when
neither is known — and ``remediation_text()`` the fix as text, never NULL. Its commands use
``BOOTSTRAP_PLACEHOLDER`` (``<bootstrap>``) in place of the cluster's bootstrap servers.

Names and values come from the metadata log and the catalogs, so they are hostile input: a group named
``pay$(touch x)`` must not run anything when its fix is pasted into a shell. Every name and value of a command is
one word through :func:`shell_quoted` (POSIX single quotes, as ``shlex.quote``), and what is not a command — notes,
a server.properties edit, a command still holding a placeholder — is a ``#`` comment without line breaks.

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

__all__ = ["BOOTSTRAP_PLACEHOLDER", "fix_value", "remediation_change", "remediation_text", "shell_quoted"]

BOOTSTRAP_PLACEHOLDER: Final = "<bootstrap>"
VALUE_PLACEHOLDER: Final = "<valid value>"
# the placeholder is quoted like every other word: unedited, the command cannot read a file named `bootstrap`
_KAFKA_CONFIGS: Final = f"kafka-configs.sh --bootstrap-server '{BOOTSTRAP_PLACEHOLDER}' --alter "


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


def shell_quoted(word: Column) -> Column:
    """``word`` as one POSIX shell word, the way Python's ``shlex.quote`` writes it.

    A word made only of characters no shell treats specially (``[A-Za-z0-9_@%+=:,./-]``) is kept as it is; any
    other word, the empty one included, is put in single quotes, each ``'`` in it written ``'"'"'`` (close, a
    double-quoted ``'``, reopen). Inside single quotes a POSIX shell expands nothing (``$(...)``, backticks, ``;``,
    line breaks are plain characters), so the word reaches the command unchanged. NULL stays NULL. Every name and
    value of a generated command goes through this function.
    """
    quoted = F.concat(F.lit("'"), F.replace(word, F.lit("'"), F.lit("'\"'\"'")), F.lit("'"))
    # \A...\z: Java's `$` would also match before a final line break, letting "x\n" through unquoted
    return F.when(word.rlike(r"\A[A-Za-z0-9_@%+=:,./-]+\z"), word).otherwise(quoted)


def _comment(text: Column) -> Column:
    """``text`` as a shell comment: ``# text`` with line breaks made spaces, so no part of it can start a command
    line. Its fixed words carry no shell syntax and its values are quoted, so a shell that does not read ``#`` as a
    comment (zsh without ``interactivecomments``) passes them as plain words."""
    return F.concat(F.lit("# "), F.regexp_replace(text, r"[\r\n]", " "))


def _config_value(value: Column) -> Column:
    """kafka-configs.sh needs square brackets around a value that contains commas."""
    return F.when(value.contains(","), F.concat(F.lit("["), value, F.lit("]"))).otherwise(value)


def _entity(kind: str, name: Column) -> Column:
    return F.concat(F.lit(f"--entity-type {kind} --entity-name "), shell_quoted(name), F.lit(" "))


def _client_entity(name: Column) -> Column:
    """``user=alice,client-id=app`` -> ``--entity-type users --entity-name alice --entity-type clients ...``."""
    user = F.regexp_extract(name, r"(?:^|,)user=([^,]*)", 1)
    client = F.regexp_extract(name, r"(?:^|,)client-id=([^,]*)", 1)
    has_user = name.rlike(r"(^|,)user=")
    has_client = name.rlike(r"(^|,)client-id=")

    def part(kind: str, entity: Column, present: Column) -> Column:
        named = F.when(entity == "<default>", F.lit(f"--entity-type {kind} --entity-default ")).otherwise(
            _entity(kind, entity)
        )
        return F.when(present, named).otherwise(F.lit(""))

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


def _fallback() -> Column:
    """The value a deleted override falls back to and its layer (``'<value>' from <source>``), for the notes."""
    return F.concat_ws(" ", shell_quoted(F.col("fallback_value")), F.lit("from"), F.col("fallback_source"))


def _static_fix(key: Column, value: Column, name: Column) -> Column:
    """The server.properties edit and rolling restart that fix a read-only BROKER key (written as a comment)."""
    return F.concat(
        F.lit("set "),
        shell_quoted(F.concat(key, F.lit("="), value)),
        F.lit(" in server.properties of broker "),
        shell_quoted(name),
        F.lit(" and restart it with a rolling restart, "),
        shell_quoted(key),
        F.lit(" is read-only and cannot be changed dynamically"),
    )


def _notes(key: Column, has_value: Column, deletes: Column) -> Column:
    """The notes after a fix, joined by ``. `` ("" when none): an expression without a derivable value, what a
    deleted override falls back to, the per-broker override's alternative, a fallback that fails too, the hint."""
    deleted_note = F.concat(
        F.lit("the override is removed, and "),
        F.when(F.col("fallback_value").isNotNull(), _fallback()).otherwise(F.lit("the value below it")),
        F.lit(" applies and passes"),
    )
    node_override_note = F.when(
        (F.col("value_source") == ConfigSource.DYNAMIC_BROKER_CONFIG) & ~deletes & F.col("fallback_ok").isNull(),
        F.concat(
            F.lit("this per-broker dynamic value overrides the cluster default and server.properties, if those are"),
            F.lit(" valid remove it instead with --delete-config "),
            shell_quoted(key),
        ),
    )
    fails_too = F.when(
        F.col("fallback_ok") == F.lit(False),
        F.concat(
            F.lit("deleting the override instead would fall back to "),
            F.when(F.col("fallback_value").isNotNull(), _fallback()).otherwise(F.lit("the values of the brokers")),
            F.lit(", which does not pass either"),
        ),
    )
    unknown_expr_note = F.when(
        (F.col("constraint_kind") == "expr") & ~has_value,
        F.concat(
            F.lit("change "),
            F.coalesce(F.col("rule_configs_text"), key),
            F.lit(" so that "),
            shell_quoted(F.col("expr_text")),
            F.lit(" holds, no single value follows from the expression"),
        ),
    )
    hint = F.when(
        F.col("remediation_hint").isNotNull(), F.concat(F.lit("hint: "), shell_quoted(F.col("remediation_hint")))
    )
    return F.concat_ws(". ", unknown_expr_note, F.when(deletes, deleted_note), node_override_note, fails_too, hint)


def remediation_text() -> Column:
    """A copy-paste fix: a kafka-configs.sh command at the right scope, or a server.properties change.

    The text is one shell line: the command, every name and value in it through :func:`shell_quoted`, then its
    notes as a ``#`` comment. A fix a shell must not run as it stands — a server.properties edit, a command whose
    value is the ``<valid value>`` placeholder — is a comment as a whole. ``<bootstrap>`` is quoted too: running
    the command unedited fails to connect, it never reads a file named ``bootstrap``.
    """
    key = F.col("config_name")
    has_value = F.col("fix_value").isNotNull()
    value = F.coalesce(F.col("fix_value"), F.lit(VALUE_PLACEHOLDER))
    deletes = _deletes()
    add = F.concat(F.lit("--add-config "), shell_quoted(F.concat(key, F.lit("="), _config_value(value))))
    delete = F.concat(F.lit("--delete-config "), shell_quoted(key))
    name = F.col("resource_name")
    rtype = F.col("resource_type")
    layer, _, entity_default = _broker_target()

    def command(entity: Column) -> Column:
        return F.concat(F.lit(_KAFKA_CONFIGS), entity, F.when(deletes, delete).otherwise(add))

    broker_entity = F.when(entity_default, F.lit("--entity-type brokers --entity-default ")).otherwise(
        _entity("brokers", name)
    )
    fix = (
        F.when(
            rtype == ResourceType.BROKER,
            F.when(layer == "static", _comment(_static_fix(key, value, name))).otherwise(command(broker_entity)),
        )
        .when(rtype.isin(ResourceType.TOPIC, ResourceType.CONTROLLER_TOPIC), command(_entity("topics", name)))
        .when(rtype == ResourceType.GROUP, command(_entity("groups", name)))
        .when(rtype == ResourceType.CLIENT_METRICS, command(_entity("client-metrics", name)))
        .when(rtype == ResourceType.CLIENT, command(_client_entity(name)))
        .otherwise(_comment(F.concat(F.lit("change "), shell_quoted(key), F.lit(" to "), shell_quoted(value))))
    )
    # a placeholder value must be edited before the command runs: the command is written as a comment
    fix = F.when(deletes | has_value | fix.startswith("#"), fix).otherwise(
        _comment(F.concat(F.lit("replace the placeholder value, then run: "), fix))
    )
    notes = _notes(key, has_value, deletes)
    return F.concat(fix, F.when(notes != "", F.concat(F.lit("  "), _comment(notes))).otherwise(F.lit("")))
