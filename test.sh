#!/usr/bin/env bash
# Runs every test: unit and end-to-end tests on a real Kafka broker (embedded unless -Dkafka.bootstrap=host:port
# or KAFKA_BOOTSTRAP names one), then the packaged jar in its own process.
set -euo pipefail
cd "$(dirname "$0")"
source ./scripts/java-home.sh
exec mvn -B -ntp verify "$@"
