package io.kafkapixy.testing;

import java.util.LinkedHashMap;
import java.util.Map;

import io.kafkapixy.embedded.EmbeddedKafka;

/**
 * A proxy with two clusters: {@code default} on the shared test broker and {@code strict}, a broker of its own that
 * does not auto-create topics (for the unknown-topic answers and routing by cluster name).
 */
public final class TwoClusters implements AutoCloseable {

    private final EmbeddedKafka strict;
    private final RunningPixy pixy;

    private TwoClusters(EmbeddedKafka strict, RunningPixy pixy) {
        this.strict = strict;
        this.pixy = pixy;
    }

    public static TwoClusters start() {
        EmbeddedKafka strict = EmbeddedKafka.start(Map.of("auto.create.topics.enable", "false"));
        Map<String, String> clusters = new LinkedHashMap<>();
        clusters.put("default", TestKafka.get().bootstrap());
        clusters.put("strict", strict.bootstrapServers());
        return new TwoClusters(strict, RunningPixy.start(RunningPixy.config(clusters)));
    }

    public RunningPixy pixy() {
        return pixy;
    }

    public String strictBootstrap() {
        return strict.bootstrapServers();
    }

    @Override
    public void close() {
        pixy.close();
        strict.close();
    }
}
