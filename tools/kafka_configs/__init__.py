"""Extract Kafka's config definitions for one release from a git mirror into a YAML catalog.

Run by hand, never by tests or CI (from the repository root)::

    .venv/bin/python -m tools.kafka_configs --git-dir /work/.mirror/confluentinc+kafka/repo \\
        --repo confluentinc/kafka --ref 4.4 --release 4.4 --previous conf/kafka/4.3.yaml --out conf/kafka/4.4.yaml

How it works (see conf/kafka/README.md for the output format):

* :mod:`~tools.kafka_configs.git` reads the Java and Scala sources of the release with ``git show <ref>:<path>``
  (no work tree needed); :mod:`~tools.kafka_configs.lexer` tokenises them and
  :mod:`~tools.kafka_configs.source` indexes imports, classes, constants and methods.
* :mod:`~tools.kafka_configs.defines` finds every ``define(...)`` / ``defineInternal(...)`` call and the ConfigDef
  it builds. Which ConfigDefs make up each resource (broker / topic / group / client_metrics) per release is a
  hand-checked fact (``facts/releases.yaml``).
* :mod:`~tools.kafka_configs.resolver` and :mod:`~tools.kafka_configs.expr` resolve names and defaults by evaluating
  constant expressions across files; :mod:`~tools.kafka_configs.entries` renders them as ConfigDef would.
* :mod:`~tools.kafka_configs.validators` turns validators into the structured forms of the README; code validators
  become ``{kind: custom}`` with descriptions from ``facts/validators.yaml``.
* :mod:`~tools.kafka_configs.dynamic` computes the broker dynamic scopes from the reconfigurable sets that each
  release's DynamicBrokerConfig unions (composition in ``facts/dynamic.yaml``, members extracted).
* :mod:`~tools.kafka_configs.checks` adds the hand-written cross-field checks (``facts/checks.yaml``) and the
  comparisons read from exception messages; :mod:`~tools.kafka_configs.build` assembles the document, applying the
  hand-checked corrections of ``facts/manual.yaml``; :mod:`~tools.kafka_configs.writer` writes it.
* Anything still unresolved is listed under ``unresolved:`` in the output and makes the command exit with status 3,
  so a human has to look at it.

Releases compare as :class:`~tools.kafka_configs.release.Release` values, never as strings. Only facts are written
(names, types, defaults, validators, importance, dynamic scopes, synonyms); no Kafka source is copied.
"""

from tools.kafka_configs.build import build
from tools.kafka_configs.facts import Facts, load_facts
from tools.kafka_configs.git import Git, SourceTree
from tools.kafka_configs.release import Release
from tools.kafka_configs.writer import dump

__all__ = ["Facts", "Git", "Release", "SourceTree", "build", "dump", "load_facts"]
