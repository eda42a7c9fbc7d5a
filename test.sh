#!/usr/bin/env bash
# Runs every test: unit and end-to-end tests on a real Kafka broker (embedded unless -Dkafka.bootstrap=host:port
# or KAFKA_BOOTSTRAP names one), then the packaged jar in its own process, including the gRPC interop matrix
# (Python, Ruby, Go and Node clients; scripts/install-interop-clients.sh installs them). A suite whose tool is
# missing is skipped and named at the end with the install that would run it; with INTEROP_REQUIRED=true (CI) it
# fails the run instead.
#   ./test.sh -Dtest=RestProduceTest        that unit or end-to-end class alone (patterns as Surefire's)
#   ./test.sh -Dit.test=PackagedJarIT       that integration class (the packaged jar) alone
set -euo pipefail
cd "$(dirname "$0")"
source ./scripts/java-home.sh
rm -f target/interop/skipped.txt
unit_chosen=false
it_chosen=false
for arg in "$@"; do
  case "$arg" in
    -Dtest=*) unit_chosen=true ;;
    -Dit.test=*) it_chosen=true ;;
  esac
done
chosen=()
if $unit_chosen && ! $it_chosen; then
  chosen+=(-DskipITs)                     # Failsafe ignores -Dtest: without this it would run every IT
elif $it_chosen && ! $unit_chosen; then
  chosen+=(-Dtest=none -Dsurefire.failIfNoSpecifiedTests=false)
fi
status=0
mvn -B -ntp verify -Dinterop.required="${INTEROP_REQUIRED:-false}" "${chosen[@]}" "$@" || status=$?
if [ -s target/interop/skipped.txt ]; then
  echo "Skipped, for want of a tool (scripts/install-interop-clients.sh installs them all):"
  sort -u target/interop/skipped.txt | sed 's/^/  /'
fi
exit $status
