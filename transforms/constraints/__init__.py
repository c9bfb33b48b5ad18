"""The last stage: the compiled constraint catalog (``transforms.configdef``) evaluated over the effective
configuration as vectorized Columns, at the target and at every level, with remediations and the violation lifecycle.

Entry points for jobs::

    from schemas.constraints import load_catalog_text
    from transforms.constraints import (
        compile_catalog, evaluate_constraints, violations_by_level, highest_safe_levels, generate_default_catalog,
    )
    from jobs.runtime.expression_check import validate_with_spark   # needs the live session's parser

    catalogs = [generate_default_catalog(kafka_docs, mv_table)]   # kafka_docs: (name, parsed conf/kafka/*.yaml)
    catalogs += [load_catalog_text(path.read_text(), str(path)) for path in files]   # jobs read the files
    rules = compile_catalog(catalogs, mv_table)          # pure: ids, since levels, KIP-1294 intervals
    validate_with_spark(rules, spark)                    # expression syntax/fields, Java regexes (no job)
    violations_df = evaluate_constraints(effective_df, topics_df, cluster_df, rules, target=mv,
                                         run_id=run_id, run_ts=run_ts, dynamic_scope_df=scopes_df)

Modules: ``evaluate`` (the pass), ``remediation`` (SET / DELETE fixes and their text), ``lifecycle`` (a violation's
status across runs); the catalog itself (selection, checks, expressions, rule tables, the default catalog) is
``transforms.configdef``. The evaluation reads only the effective configuration: what an override falls back to
(DELETE fixes) comes in through ``evaluate_constraints(fallback_resolver=...)``, computed by ``transforms.whatif``.
"""

from schemas.constraints import CompiledCatalog, CompiledConstraint
from transforms.configdef.generate import generate_default_catalog
from transforms.configdef.selection import active_at, compile_catalog
from transforms.constraints.evaluate import evaluate_constraints
from transforms.constraints.failures import constraint_failures
from transforms.constraints.levels import highest_safe_levels, violations_by_level

__all__ = [
    "CompiledCatalog",
    "CompiledConstraint",
    "active_at",
    "compile_catalog",
    "constraint_failures",
    "evaluate_constraints",
    "generate_default_catalog",
    "highest_safe_levels",
    "violations_by_level",
]
