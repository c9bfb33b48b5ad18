"""``python -m tools.kafka_configs``: see :mod:`tools.kafka_configs.cli`."""

from tools.kafka_configs.cli import main

raise SystemExit(main())
