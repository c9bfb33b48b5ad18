"""What-if: the configuration state changed and resolved again (``simulate``, and the remediation fallbacks).

``changes`` writes a ``ChangeSet`` into the stored configuration layers, ``scenarios`` resolves several variants of a
state in one call, and ``fallbacks`` finds what an override falls back to once deleted. Every variant is resolved
by ``transforms.effective.resolve_effective_configs``, exactly as the audited state is.
"""

from transforms.whatif.changes import ConfigLayers, apply_changes
from transforms.whatif.fallbacks import override_sources, resolve_fallbacks
from transforms.whatif.scenarios import resolution_state, union_scenarios, untagged, with_layers

__all__ = [
    "ConfigLayers",
    "apply_changes",
    "override_sources",
    "resolution_state",
    "resolve_fallbacks",
    "union_scenarios",
    "untagged",
    "with_layers",
]
