#!/usr/bin/env bash
# Builds Kafka-Pixy and starts it on an embedded single-node Kafka broker: REST on :19092, gRPC on :19091.
# Extra arguments are passed to the proxy (e.g. -tcpAddr 127.0.0.1:8080, -embeddedKafkaDir /tmp/kafka-data).
# The broker is not in the production artifact (target/kafka-pixy.jar + target/libs): its jars are in
# target/quickstart-libs, added to the class path here.
set -euo pipefail
cd "$(dirname "$0")"
source ./scripts/java-home.sh
# Only what running needs (no tests, no benchmark), and not at all when the jar is newer than every source.
jar=target/kafka-pixy.jar
if [ -f "$jar" ] && [ -d target/quickstart-libs ] && [ -z "$(find pom.xml src/main -newer "$jar" -print -quit)" ]; then
  echo "run.sh: $jar is up to date with the sources; starting it on an embedded Kafka broker" >&2
else
  echo "run.sh: building $jar (Maven, without the tests; a minute or two the first time, its downloads included)" >&2
  mvn -B -ntp -q -Dstyle.color=never -Dmaven.test.skip=true package
  echo "run.sh: built; starting it on an embedded Kafka broker" >&2
fi
# The allocator arenas as the container image sets them (docs/performance.md, Footprint).
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
exec "$JAVA_HOME/bin/java" "@$PIXY_JVM_OPTIONS" -cp "target/kafka-pixy.jar:target/quickstart-libs/*" io.kafkapixy.Main \
     -embeddedKafka "$@"
