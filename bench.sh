#!/usr/bin/env bash
# Benchmarks Kafka-Pixy side by side with raw kafka-clients (see docs/performance.md). Builds the proxy jar and the
# benchmark (src/bench/java, compiled with the tests, never in the jar), then runs it; arguments go to the benchmark:
#   ./bench.sh                                   embedded broker + target/kafka-pixy.jar as a child process
#   ./bench.sh --grpc h:p --http h:p --kafka h:p  any running Kafka-Pixy-compatible server (e.g. the original)
#   ./bench.sh --help                            all flags
# BENCH_SKIP_BUILD=1 reuses the previous build; BENCH_PROXY_FLAGS adds JVM flags to the child proxy's command only.
# BENCH_PROXY_YAML adds top-level sections to the child proxy's config (e.g. "limits: {max_groups: 100}").
set -euo pipefail
cd "$(dirname "$0")"
source ./scripts/java-home.sh
if [ "${BENCH_SKIP_BUILD:-}" != 1 ] || [ ! -f target/bench-classpath.txt ]; then
  mvn -B -ntp -q -DskipTests package dependency:build-classpath \
      -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=test
fi
exec "$JAVA_HOME/bin/java" -Xmx2g \
     -cp "target/test-classes:target/classes:$(cat target/bench-classpath.txt)" io.kafkapixy.bench.Bench "$@"
