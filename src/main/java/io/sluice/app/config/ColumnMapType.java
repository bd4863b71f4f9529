package io.sluice.app.config;

import io.sluice.spi.config.SettingType;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A YAML mapping of source column to target column ({@code {old_name: new_name}}), or the same as
 * comma-separated {@code old=new} pairs, so it also fits a one-line property.
 */
final class ColumnMapType extends SettingType<Map<String, String>> {
    static final ColumnMapType INSTANCE = new ColumnMapType();

    private ColumnMapType() {
        super("map", "a mapping of source column to target column, e.g. {old_name: new_name}");
    }

    @Override
    public Map<String, String> parse(Object raw) {
        Map<String, String> out = new LinkedHashMap<>();
        if (raw instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (e.getValue() == null || e.getValue() instanceof Map || e.getValue() instanceof Iterable) {
                    throw new IllegalArgumentException("column " + e.getKey() + " needs a target column name");
                }
                out.put(String.valueOf(e.getKey()), String.valueOf(e.getValue()));
            }
            return out;
        }
        if (raw instanceof String s) {
            for (String pair : s.split(",")) {
                if (pair.isBlank()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                if (eq <= 0 || eq == pair.length() - 1) {
                    throw new IllegalArgumentException("expected old=new pairs");
                }
                out.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
            }
            return out;
        }
        throw new IllegalArgumentException("expected a mapping");
    }

    @Override
    public String format(Map<String, String> value) {
        return value.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
    }
}
