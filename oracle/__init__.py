"""Kafka as the oracle (issue #60): real brokers of each release, run here, answer what kraft-audit predicts.

``runtime`` finds a fetched release (``scripts/kafka-oracle/fetch.sh``), ``node`` formats, starts and stops one
combined KRaft node, ``admin`` drives it through the release's own Admin client and FeatureCommand, ``scenarios``
describes cases as data and records Kafka's answers per scenario and release.
"""
