package io.kafkapixy.bench;

import java.util.List;
import java.util.Set;

/** One named part of the benchmark; it adds its figures to the context's report. */
interface Scenario {

    String name();

    void run(BenchContext ctx) throws Exception;

    /** The scenarios named, in the canonical order (Options sorts the names). */
    static List<Scenario> selected(Set<String> names) {
        List<Scenario> all = List.of(new FootprintScenario(), new ProduceSyncScenario(), new ProduceAsyncScenario(),
                new StreamProduceScenario(), new ConsumeScenario(), new InFlightScenario(), new ShareScenario(),
                new CapacityScenario(), new IdleTopicsScenario(), new JoinBurstScenario());
        return all.stream().filter(s -> names.contains(s.name())).toList();
    }
}
