"""The audit as steps, read → transform → write: ``extract`` (bronze), ``resolve`` (replay into silver, the
effective configuration into gold), ``evaluate`` (violations, levels, findings), ``summarize`` (the verdict);
``tables`` says how each table is written and ``settings`` what an audit is asked. ``jobs.audit`` runs them in order
and decides what is held between them."""
