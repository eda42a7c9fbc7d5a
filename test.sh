#!/usr/bin/env bash
# Runs every test: unit and end-to-end tests on a real Kafka broker (embedded unless -Dkafka.bootstrap=host:port
# or KAFKA_BOOTSTRAP names one), then the packaged jar in its own process, including the gRPC interop matrix
# (Python, Ruby, Go and Node clients; scripts/install-interop-clients.sh installs them). A client whose toolchain
# is missing is skipped and named at the end; with INTEROP_REQUIRED=true (CI) it fails the run instead.
set -euo pipefail
cd "$(dirname "$0")"
source ./scripts/java-home.sh
rm -f target/interop/skipped.txt
status=0
mvn -B -ntp verify -Dinterop.required="${INTEROP_REQUIRED:-false}" "$@" || status=$?
if [ -s target/interop/skipped.txt ]; then
  echo "interop clients skipped (run scripts/install-interop-clients.sh to install them):"
  sort -u target/interop/skipped.txt | sed 's/^/  /'
fi
exit $status
