package io.sluice.spi.config;

import java.util.List;

/** Every problem found in a configuration, reported at once; each names the key (or table) to fix. */
public class ConfigException extends RuntimeException {
    private final List<String> problems;

    public ConfigException(List<String> problems) {
        super(format(problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }

    private static String format(List<String> problems) {
        StringBuilder sb = new StringBuilder("configuration has ").append(problems.size())
                .append(problems.size() == 1 ? " problem:" : " problems:");
        for (String p : problems) {
            sb.append("\n  - ").append(p);
        }
        return sb.toString();
    }
}
