# Sourced by run.sh, test.sh and bench.sh: makes JAVA_HOME point at a JDK 21 or newer (Helidon 4 needs it) and sets
# PIXY_JVM_OPTIONS, the argument file to start the proxy with on it.
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
# The proxy's JVM settings (jvm.options, beside this script's directory) as an argument file this JDK accepts: JDK 21
# and 22 do not know --sun-misc-unsafe-memory-access, so for them a copy without it is written to target/.
PIXY_JVM_OPTIONS="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/jvm.options"
if [ "$(java_feature "$JAVA_HOME")" -lt 23 ]; then
  mkdir -p "$(dirname "$PIXY_JVM_OPTIONS")/target"
  grep -v -- '^--sun-misc-unsafe-memory-access' "$PIXY_JVM_OPTIONS" > "$(dirname "$PIXY_JVM_OPTIONS")/target/jvm.options"
  PIXY_JVM_OPTIONS="$(dirname "$PIXY_JVM_OPTIONS")/target/jvm.options"
else
  # Maven's own JVM (Guice in Maven 3.8 uses sun.misc.Unsafe): not the proxy's, only its warning silenced.
  export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
fi
export PIXY_JVM_OPTIONS
