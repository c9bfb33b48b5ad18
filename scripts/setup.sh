#!/usr/bin/env bash
# Set up a development/runtime environment: Java >= 17 and .venv with the project and its test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"

java_major() {
  command -v java >/dev/null 2>&1 || { echo 0; return; }
  java -version 2>&1 | awk -F'"' '/version/ {split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); exit}'
}

if [ "$(java_major)" -lt 17 ] 2>/dev/null; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing Java 17 (openjdk-17-jdk-headless) with apt-get" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless >/dev/null
  else
    echo "setup: Java 17 or newer is required; install openjdk-17-jdk-headless (or any JDK >= 17) and re-run" >&2
    exit 1
  fi
fi

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi

# Maven's downloads run beside pip's install (they share nothing but the network): Delta Lake's jars for local
# sessions (jobs/runtime/session.py adds them to spark.jars), fetched once from Maven Central, then offline; and Kafka
# 4.4.0's own broker for the oracle's live test (tests/oracle, issue 60), fetched once into ~/.cache/kraft-audit/kafka
# (KRAFT_AUDIT_KAFKA_CACHE), outside the repository, a present release skipped. `make kafka-runtime` fetches the other
# releases the oracle compares.
DELTA_JARS=.venv/delta-jars
DELTA_POM=scripts/delta-jars/pom.xml
need_delta=0
if [ ! -f "$DELTA_JARS/.complete" ] || [ "$DELTA_POM" -nt "$DELTA_JARS/.complete" ]; then
  need_delta=1
fi
if ! command -v mvn >/dev/null 2>&1; then
  echo "setup: Maven (mvn) is needed once to fetch Delta Lake's jars (io.delta:delta-spark_4.2_2.13) and Kafka 4.4.0 from Maven Central; install maven and re-run" >&2
  exit 2
fi
maven_dir=$(mktemp -d)
(
  if [ "$need_delta" = 1 ] && ! mvn -q -B -f "$DELTA_POM" dependency:copy-dependencies -DincludeScope=runtime \
      -DoutputDirectory="$maven_dir/jars" >"$maven_dir/delta.log" 2>&1; then
    touch "$maven_dir/delta.failed"
  fi
  if ! scripts/kafka-oracle/fetch.sh 4.4.0 >"$maven_dir/kafka.log" 2>&1; then
    touch "$maven_dir/kafka.failed"
  fi
) &
maven_pid=$!
trap 'kill "$maven_pid" 2>/dev/null || true; rm -rf "$maven_dir"' EXIT

STAMP=.venv/.kraft-audit-installed
if [ ! -f "$STAMP" ] || [ pyproject.toml -nt "$STAMP" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  # pip byte-compiles what it installs on one core (about half of its time here); compileall does the same files on
  # every core. Files that do not compile are skipped silently, as pip skips them.
  .venv/bin/python -m pip install -q --no-compile -e '.[test]'
  .venv/bin/python -m compileall -q -j 0 .venv/lib/python*/site-packages >/dev/null 2>&1 || true
  touch "$STAMP"
fi

wait "$maven_pid" || true
if [ -f "$maven_dir/delta.failed" ]; then
  tail -n 20 "$maven_dir/delta.log" >&2
  echo "setup: Maven could not fetch Delta Lake's jars from Maven Central (see above)" >&2
  exit 2
fi
if [ -f "$maven_dir/kafka.failed" ]; then
  cat "$maven_dir/kafka.log" >&2
  echo "setup: Maven could not fetch Kafka 4.4.0 (org.apache.kafka:kafka_2.13) from Maven Central (see above)" >&2
  exit 2
fi
if [ "$need_delta" = 1 ]; then
  # only the jars pyspark does not ship already are kept (the same artifact in another version would sit beside
  # Spark's own on the classpath)
  rm -rf "$DELTA_JARS"
  .venv/bin/python scripts/delta-jars/keep_new.py "$maven_dir/jars" "$DELTA_JARS"
  touch "$DELTA_JARS/.complete"
fi

# Hadoop's local file system without a chmod / readlink process per file (jobs/runtime/java; jobs/runtime/session.py
# puts it on the classpath of the local sessions it starts): compiled once against pyspark's own Hadoop, as a jar (the
# class-data archive below takes jars only). Without a JDK's javac and jar, local sessions keep Hadoop's own file
# system (the same tables, a few seconds slower per audit).
LOCAL_FS=.venv/kraft-audit-local-fs.jar
if [ ! -f "$LOCAL_FS" ] || [ -n "$(find jobs/runtime/java -name '*.java' -newer "$LOCAL_FS")" ]; then
  if command -v javac >/dev/null 2>&1 && command -v jar >/dev/null 2>&1; then
    hadoop_api=$(ls .venv/lib/python*/site-packages/pyspark/jars/hadoop-client-api-*.jar | head -n 1)
    classes=$(mktemp -d)
    javac --release 17 -nowarn -cp "$hadoop_api" -d "$classes" jobs/runtime/java/*.java
    jar --create --file "$LOCAL_FS.tmp" -C "$classes" .
    mv "$LOCAL_FS.tmp" "$LOCAL_FS"
    rm -rf "$classes" .venv/local-fs-classes
  else
    echo "setup: no javac (a JDK's compiler): local sessions keep Hadoop's own local file system, which starts a chmod process per file written" >&2
  fi
fi

# The driver's class-data archive (HotSpot's AppCDS; jobs/runtime/session.py maps it into the local JVMs it starts):
# the classes a small pipeline run loads, written by one such run once the jars above are in place, again whenever
# one of them (or the venv) is newer. Without it sessions start a few seconds slower, nothing else changes.
ARCHIVE=.venv/spark-classes.jsa
if [ ! -f "$ARCHIVE" ] || [ -n "$(find "$STAMP" "$DELTA_JARS/.complete" "$LOCAL_FS" scripts/class_archive.py -newer "$ARCHIVE" 2>/dev/null)" ]; then
  if ! SPARK_LOCAL_IP=127.0.0.1 .venv/bin/python scripts/class_archive.py "$ARCHIVE"; then
    echo "setup: the class-data archive could not be written; local sessions start without it" >&2
  fi
fi
