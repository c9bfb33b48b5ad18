"""Constraint catalogs of a given size for the catalog-scaling benchmark, built from the default catalog.

* ``n`` ≤ the default catalog's size: ``n`` of its constraints taken evenly across it (checks and expressions in
  their catalog proportions, every resource type);
* ``n`` > that: the whole default catalog plus copies of its constraints (cycled in order) with distinct ids
  (``<id>.copy<k>``): the same keys, checks and ``since`` levels, so every copy is evaluated on the same rows as its
  original. Per-row work therefore grows with ``n``; what must not grow is the fixed cost per constraint.
"""

from __future__ import annotations

from schemas.constraints import Constraint, ConstraintCatalog


def sized_catalog(default: ConstraintCatalog, n: int) -> ConstraintCatalog:
    """A catalog of exactly ``n`` constraints derived from ``default`` (see the module docstring).

    Raises:
        ValueError: ``n`` < 1 or an empty default catalog.
    """
    base = list(default.constraints)
    if n < 1 or not base:
        raise ValueError("a sized catalog needs n >= 1 and a non-empty default catalog")
    if n <= len(base):
        picked = [base[(i * len(base)) // n] for i in range(n)]
        return ConstraintCatalog(source=f"<bench {n}>", constraints=tuple(picked))
    constraints: list[Constraint] = list(base)
    k = 0
    while len(constraints) < n:
        original = base[k % len(base)]
        copy_no = k // len(base) + 1
        constraints.append(original.model_copy(update={"id": f"{original.id}.copy{copy_no}"}))
        k += 1
    return ConstraintCatalog(source=f"<bench {n}>", constraints=tuple(constraints))
