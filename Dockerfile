# Kafka-Pixy container image: docker build -t kafka-pixy .
# Runs as a non-root user with the config at /etc/kafka-pixy.yaml; REST on 19092, gRPC on 19091.

# ---- build: Maven 3.9 on Temurin JDK 25 (the code targets release 21) ----
FROM maven:3.9-eclipse-temurin-25 AS build
WORKDIR /build
# Dependencies first, in their own layer (the local repository is in the layers, not in a volume): it is reused
# until pom.xml changes.
COPY pom.xml .
RUN mvn -B -ntp -Dmaven.repo.local=/build/.m2 dependency:go-offline
COPY src ./src
# target/kafka-pixy.jar, whose manifest Class-Path points at target/libs/
RUN mvn -B -ntp -Dmaven.repo.local=/build/.m2 -DskipTests package

# ---- aot: a training run makes the JVM's ahead-of-time cache (JDK 25), on the runtime image's own JVM and at the
# jar's run-time path, which the cache requires. UNTESTED here (no Docker engine where this was written); the same
# script is what ./bench.sh's footprint scenario measures. If the cache does not fit at run time, the JVM says so and
# starts without it. ----
FROM eclipse-temurin:25-jre AS aot
WORKDIR /opt/kafka-pixy
COPY --from=build /build/target/libs/ ./libs/
COPY --from=build /build/target/kafka-pixy.jar ./kafka-pixy.jar
COPY --from=build /build/target/quickstart-libs/ /tmp/quickstart-libs/
COPY jvm.options ./jvm.options
COPY scripts/aot-train.sh /tmp/aot-train.sh
RUN /tmp/aot-train.sh /opt/kafka-pixy /tmp/quickstart-libs /opt/kafka-pixy/kafka-pixy.aot

# ---- runtime: Temurin JRE 25; no broker in it (target/quickstart-libs stays in the build stages) ----
FROM eclipse-temurin:25-jre
RUN groupadd --system --gid 10001 pixy \
 && useradd --system --uid 10001 --gid pixy --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin pixy
WORKDIR /opt/kafka-pixy
COPY --from=build /build/target/libs/ ./libs/
COPY --from=build /build/target/kafka-pixy.jar ./kafka-pixy.jar
COPY --from=aot /opt/kafka-pixy/kafka-pixy.aot ./kafka-pixy.aot
COPY jvm.options ./jvm.options
COPY docker/kafka-pixy.yaml /etc/kafka-pixy.yaml
# Two allocator arenas for the C library instead of up to eight per core: ~35 MiB less resident native memory
# (docs/performance.md, Footprint).
ENV MALLOC_ARENA_MAX=2
# A numeric user, so Kubernetes' runAsNonRoot can verify it.
USER 10001:10001
EXPOSE 19091 19092
# SIGTERM drains: consumers commit acked offsets, producers get producer.shutdown_timeout (30s) to deliver
# what they accepted. Give the container longer than that to stop: docker stop -t 60.
STOPSIGNAL SIGTERM
# jvm.options: the collector and memory limits, the heap 30% of the container's memory limit, an OutOfMemoryError
# ends the process so that it is restarted, the native and Unsafe access the libraries need (docs/performance.md,
# Footprint). The AOT cache halves the start-up (the training run used the same file). More JVM options:
# docker run -e JDK_JAVA_OPTIONS='...'. Extra arguments are proxy flags that override the file, e.g.
# docker run kafka-pixy -kafkaPeers broker:9092.
ENTRYPOINT ["java", \
            "@/opt/kafka-pixy/jvm.options", \
            "-XX:AOTCache=/opt/kafka-pixy/kafka-pixy.aot", \
            "-jar", "/opt/kafka-pixy/kafka-pixy.jar", \
            "-config", "/etc/kafka-pixy.yaml"]
