#!/usr/bin/env bash
# Starts one pipeline of deploy/connect on a Kafka Connect cluster, in the order `sluice replicate` uses on its
# embedded runtime (io.sluice.app.pipeline.Pipeline.start):
#   1. create the change and copy topics (topics.txt), so no consumer or broker default picks their partitions;
#   2. start the applier, then the Debezium source, and wait until both run;
#   3. start the copier (it takes no chunk before the stream is live, but a running stream is the plain order).
#
#   mvn -q -DskipTests package && docker compose up -d --wait
#   deploy/connect/start.sh postgres-to-postgres
#
# The argument is a pair directory name under deploy/connect, or a path to a directory laid out the same way
# (topics.txt and <pipeline>-{applier,debezium,copier}.json, generated from its sluice.yaml).
#
# Environment:
#   CONNECT_URL    the Connect REST API (default http://localhost:8083, the compose stack's published port)
#   KAFKA_TOPICS   the kafka-topics command that creates topics (default: the one in the compose stack's Kafka
#                  container); it is called with --create --if-not-exists --topic ... --partitions ...
#   START_TIMEOUT  seconds to wait for each connector to run (default 180)
# Running it again is harmless: topics exist, and PUT /connectors/<name>/config of an unchanged config changes
# nothing; connectors resume from their offsets and the applier from its state table.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
pairs=$(cd "$here" && ls -d */ 2>/dev/null | tr -d / | tr '\n' ' ')
if [[ $# -ne 1 || $1 == -h || $1 == --help ]]; then
  echo "usage: $0 <pair>    pairs: $pairs" >&2
  exit 2
fi
dir=$1
[[ -d $dir ]] || dir=$here/$1
if [[ ! -f $dir/topics.txt ]]; then
  echo "$1: no generated connector configs there (pairs: $pairs)" >&2
  exit 2
fi
connect=${CONNECT_URL:-http://localhost:8083}
timeout=${START_TIMEOUT:-180}
topics_cmd=${KAFKA_TOPICS:-docker compose -f $here/../../docker-compose.yml exec -T kafka /opt/kafka/bin/kafka-topics.sh --bootstrap-server localhost:9092}

# The one file of a role; the connector's name is the file name.
connector_file() {
  local files=("$dir"/*-"$1".json)
  if [[ ${#files[@]} -ne 1 || ! -f ${files[0]} ]]; then
    echo "expected exactly one *-$1.json in $dir" >&2
    exit 2
  fi
  echo "${files[0]}"
}

put_config() {
  local file=$1 name
  name=$(basename "$file" .json)
  echo "PUT connector $name"
  # --fail-with-body: a rejected config (HTTP 400 with the validation errors) stops the script and shows why.
  curl -sS --fail-with-body -o /dev/null -X PUT -H 'Content-Type: application/json' --data-binary @"$file" \
    "$connect/connectors/$name/config"
}

# RUNNING = the connector and every task (at least one) running; FAILED anywhere stops the script with the trace.
await_running() {
  local name deadline status tasks running
  name=$(basename "$1" .json)
  deadline=$((SECONDS + timeout))
  while true; do
    status=$(curl -sS "$connect/connectors/$name/status" 2>/dev/null || true)
    if grep -q '"state":"FAILED"' <<<"$status"; then
      echo "connector $name failed: $status" >&2
      exit 1
    fi
    # (|| true: with pipefail, grep finding nothing would end the script.)
    tasks=$(grep -o '"id":[0-9]*' <<<"$status" | wc -l || true)
    running=$(grep -o '"state":"RUNNING"' <<<"$status" | wc -l || true)
    if ((tasks > 0 && running == tasks + 1)); then
      echo "connector $name running ($tasks tasks)"
      return
    fi
    if ((SECONDS > deadline)); then
      echo "connector $name not running after ${timeout}s: $status" >&2
      exit 1
    fi
    sleep 1
  done
}

applier=$(connector_file applier)
debezium=$(connector_file debezium)
copier=$(connector_file copier)

while read -r topic partitions replication retention; do
  [[ -z $topic || $topic == \#* ]] && continue
  args=(--create --if-not-exists --topic "$topic" --partitions "$partitions" --config "retention.ms=$retention")
  [[ $replication != - ]] && args+=(--replication-factor "$replication")
  echo "topic $topic ($partitions partitions)"
  # shellcheck disable=SC2086 # the command is a word list on purpose
  $topics_cmd "${args[@]}" >/dev/null
done <"$dir/topics.txt"

put_config "$applier"
put_config "$debezium"
await_running "$debezium"
await_running "$applier"
put_config "$copier"
await_running "$copier"

echo "pipeline started; follow it with: curl -s $connect/connectors/$(basename "$copier" .json)/offsets"
