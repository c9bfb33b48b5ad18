"""Copy the jars of a Maven dependency folder that pyspark does not ship (compared by artifact name, any version).

Usage: keep_new.py SOURCE_DIR TARGET_DIR. Run by scripts/setup.sh with the project's interpreter.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pyspark

_VERSION = re.compile(r"-\d[^/]*\.jar$")


def artifact(jar: Path) -> str:
    """``jackson-core-2.13.5.jar`` -> ``jackson-core``."""
    return _VERSION.sub("", jar.name)


def main(source: str, target: str) -> int:
    shipped = {artifact(jar) for jar in (Path(pyspark.__file__).parent / "jars").glob("*.jar")}
    out = Path(target)
    out.mkdir(parents=True, exist_ok=True)
    kept = [jar for jar in sorted(Path(source).glob("*.jar")) if artifact(jar) not in shipped]
    for jar in kept:
        shutil.copy2(jar, out / jar.name)
    if not any(jar.name.startswith("delta-spark_") for jar in kept):
        print("setup: no delta-spark jar among the fetched jars", file=sys.stderr)
        return 2
    print(f"setup: {len(kept)} Delta Lake jars in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
