#!/usr/bin/env bash
# Makes an ahead-of-time cache (JDK 25, -XX:AOTCacheOutput) for the production proxy by a training run, the way the
# Dockerfile's aot stage does: a quick-start broker (the jar plus target/quickstart-libs) on loopback, the production
# jar started exactly as it will run (same directory, jvm.options, the flags below) against it, one REST session
# (join a group, produce, take the message), then SIGTERM, at which the JVM writes the cache.
#   scripts/aot-train.sh DIR QUICKSTART_LIBS CACHE
# DIR holds kafka-pixy.jar, libs/ and jvm.options as they will be at run time (a cache is only used with the same
# jar paths and JVM); JAVA (default: java on the PATH) is the JVM that will run it; JAVA_FLAGS are the flags the
# proxy will run with beside jvm.options (none in the image). The proxy must later run with -XX:AOTCache=CACHE; if
# the cache does not fit, the JVM says so and starts without it.
set -euo pipefail
dir=$1
quickstart=$2
cache=$3
java=${JAVA:-java}
flags=${JAVA_FLAGS:-}
rest_port=${AOT_TRAIN_PORT:-28092}
work=$(mktemp -d)
broker=
pixy=
cleanup() {
  [ -n "$pixy" ] && kill "$pixy" 2>/dev/null || true
  [ -n "$broker" ] && kill "$broker" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "aot-train: $1" >&2
  for log in "$work"/*.log; do
    echo "--- $log" >&2
    tail -20 "$log" >&2
  done
  exit 1
}

# Prints the status code of one HTTP/1.1 request to the training proxy, through bash's /dev/tcp: no curl needed in
# a JRE image.
http() {
  local method=$1 path=$2 body=${3:-} status
  exec 3<>"/dev/tcp/127.0.0.1/$rest_port" || return 1
  printf '%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
    "$method" "$path" "${#body}" "$body" >&3
  read -r _ status _ <&3 || status=000
  exec 3<&-
  echo "$status"
}

"$java" -cp "$dir/kafka-pixy.jar:$quickstart/*" io.kafkapixy.Main -embeddedKafka \
  -tcpAddr 127.0.0.1:$((rest_port + 10)) -grpcAddr 127.0.0.1:$((rest_port + 9)) > "$work/broker.log" 2>&1 &
broker=$!
bootstrap=
for _ in $(seq 1 240); do
  bootstrap=$(sed -n 's/.*Embedded Kafka broker started: \([^ ]*\).*/\1/p' "$work/broker.log" | head -1)
  [ -n "$bootstrap" ] && break
  kill -0 "$broker" 2>/dev/null || fail "the quick-start broker exited"
  sleep 0.5
done
[ -n "$bootstrap" ] || fail "the quick-start broker did not start in 120 s"

rm -f "$cache"
# shellcheck disable=SC2086
"$java" "@$dir/jvm.options" -XX:AOTCacheOutput="$cache" $flags -jar "$dir/kafka-pixy.jar" \
  -kafkaPeers "$bootstrap" -tcpAddr 127.0.0.1:$rest_port -grpcAddr 127.0.0.1:$((rest_port - 1)) \
  > "$work/pixy.log" 2>&1 &
pixy=$!
ready=
for _ in $(seq 1 240); do
  [ "$(http GET /health/ready 2>/dev/null)" = 200 ] && ready=1 && break
  kill -0 "$pixy" 2>/dev/null || fail "the proxy exited"
  sleep 0.5
done
[ -n "$ready" ] || fail "the proxy was not ready in 120 s"

topic=aot-training
group=aot-training
[ "$(http GET "/topics/$topic/messages?group=$group")" = 408 ] || fail "joining a group did not end in 408"
[ "$(http POST "/topics/$topic/messages?sync" training)" = 200 ] || fail "produce failed"
[ "$(http GET "/topics/$topic/messages?group=$group")" = 200 ] || fail "consume failed"

kill -TERM "$pixy"
wait "$pixy" || true
pixy=
[ -s "$cache" ] || fail "no cache written to $cache"
echo "aot-train: wrote $cache ($(du -h "$cache" | cut -f1))"
