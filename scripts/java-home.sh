# Sourced by run.sh and test.sh: makes JAVA_HOME point at a JDK 21 or newer (Helidon 4 needs it) and sets
# PIXY_JVM_FLAGS for running the proxy on it.
java_feature() {
  "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'
}
pick_jdk() {
  local candidate
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
    [ -n "$candidate" ] && [ -x "$candidate/bin/javac" ] || continue
    if [ "$(java_feature "$candidate")" -ge 21 ] 2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  done
  if command -v javac >/dev/null; then
    candidate=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    if [ "$(java_feature "$candidate")" -ge 21 ] 2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  fi
  return 1
}
if ! JAVA_HOME=$(pick_jdk); then
  echo "Kafka-Pixy needs a JDK 21 or newer; set JAVA_HOME to one." >&2
  exit 1
fi
export JAVA_HOME
PIXY_JVM_FLAGS="--enable-native-access=ALL-UNNAMED"
if [ "$(java_feature "$JAVA_HOME")" -ge 23 ]; then
  PIXY_JVM_FLAGS="$PIXY_JVM_FLAGS --sun-misc-unsafe-memory-access=allow"
  export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
fi
export PIXY_JVM_FLAGS
