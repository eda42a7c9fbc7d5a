#!/usr/bin/env bash
# Builds Kafka-Pixy and starts it on an embedded single-node Kafka broker: REST on :19092, gRPC on :19091.
# Extra arguments are passed to the proxy (e.g. -tcpAddr 127.0.0.1:8080, -embeddedKafkaDir /tmp/kafka-data).
set -euo pipefail
cd "$(dirname "$0")"
source ./scripts/java-home.sh
mvn -B -ntp -DskipTests package
exec "$JAVA_HOME/bin/java" $PIXY_JVM_FLAGS -jar target/kafka-pixy.jar -embeddedKafka "$@"
