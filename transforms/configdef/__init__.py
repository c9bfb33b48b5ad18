"""The constraint catalog both the resolution and the evaluation use: Kafka's ConfigDef validators translated
(``kafka_validators``) into the default catalog of every release (``generate``), KIP-1294 selection by level
(``selection``: floorEntry per key), the generic checks as Columns (``checks``, with their ``messages``), user
expressions read as text and evaluated ANSI-safe (``expressions``, ``expr_limits``, ``expr_fixes``, ``functions``,
``sql_text``) and the catalog as small tables (``rule_table``). Pure: files are read by jobs, expressions are checked
against the live session by ``jobs.runtime.expression_check``."""
