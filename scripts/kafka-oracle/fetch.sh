#!/usr/bin/env bash
# Fetch runnable Kafka releases for the oracle harness: fetch.sh VERSION...
# Each release's jars (kafka_2.13, kafka-tools, their dependencies and a logging backend) are copied by Maven into
# $KRAFT_AUDIT_KAFKA_CACHE/<version>/ (default ~/.cache/kraft-audit/kafka), outside the repository. A release already
# there (marked by its .complete file) is skipped. Exit 0 when every release is present, 1 when one did not resolve
# (named on stderr), 2 on a usage error or without Maven.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cache=${KRAFT_AUDIT_KAFKA_CACHE:-$HOME/.cache/kraft-audit/kafka}

if [ $# -eq 0 ]; then
  echo "usage: $0 VERSION... (e.g. 3.9.1 4.2.0 4.4.0)" >&2
  exit 2
fi
if ! command -v mvn >/dev/null 2>&1; then
  echo "fetch.sh: Maven (mvn) is not installed: install it (e.g. apt-get install maven) to fetch Kafka releases" >&2
  exit 2
fi

failed=()
for version in "$@"; do
  case "$version" in
    3.*) profile=log4j1 ;;
    4.*) profile=log4j2 ;;
    *) echo "fetch.sh: unsupported Kafka version '$version' (3.x or 4.x)" >&2; exit 2 ;;
  esac
  dest="$cache/$version"
  if [ -f "$dest/.complete" ]; then
    echo "kafka $version: present in $dest"
    continue
  fi
  tmp="$dest.partial"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  log="$cache/$version.fetch.log"
  if timeout 900 mvn -q -B -f "$here/pom.xml" -P "$profile" -Dkafka.version="$version" \
      dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp" >"$log" 2>&1; then
    rm -rf "$dest"
    mv "$tmp" "$dest"
    echo "$version $profile" >"$dest/.complete"
    rm -f "$log"
    echo "kafka $version: fetched into $dest ($(ls "$dest" | wc -l) jars)"
  else
    rm -rf "$tmp"
    reason=$(grep -m1 -oE 'could not be resolved: [^,]+|Could not find artifact [^ ]+' "$log")
    echo "kafka $version: ${reason:-did not resolve} (Maven's output: $log)" >&2
    failed+=("$version")
  fi
done
[ ${#failed[@]} -eq 0 ] || { echo "fetch.sh: not fetched: ${failed[*]}" >&2; exit 1; }
