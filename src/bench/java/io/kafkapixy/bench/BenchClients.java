package io.kafkapixy.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A clients file as a shared proxy's operators would write it, to measure what permissions cost: {@code n} named
 * clients with a token and 10 rules each over their own topics and groups. The bench's clients act as the last one,
 * whose only rule covering the bench's topics and groups ({@code bench-*}) is its tenth, so every check reads all of
 * its rules.
 */
final class BenchClients {

    static final int RULES = 10;
    private static final String[] OPERATIONS = {"write", "read", "describe", "alter"};

    private BenchClients() {
    }

    /** Writes the file; returns the token the bench's clients send. */
    static String write(Path file, int n) throws IOException {
        StringBuilder yaml = new StringBuilder("clients:\n");
        for (int i = 0; i < n; i++) {
            String team = "team-%04d".formatted(i);
            yaml.append("  - name: ").append(team).append('\n')
                    .append("    tokens: [").append(token(i)).append("]\n")
                    .append("    allow:\n");
            for (int j = 0; j < RULES - 1; j++) {
                yaml.append("      - {operations: [").append(OPERATIONS[j % OPERATIONS.length])
                        .append("], topics: [\"").append(team).append(".t").append(j).append("*\", \"")
                        .append(team).append(".u").append(j).append("\"], groups: [\"")
                        .append(team).append("-g").append(j).append("*\"]}\n");
            }
            yaml.append(i == n - 1
                    ? "      - {operations: [all], topics: [\"bench-*\"], groups: [\"bench-*\"]}\n"
                    : "      - {operations: [read], topics: [\"" + team + ".last\"], groups: [\"" + team + "-last\"]}\n");
        }
        Files.writeString(file, yaml);
        return token(n - 1);
    }

    private static String token(int i) {
        return "bench-token-%04d".formatted(i);
    }
}
