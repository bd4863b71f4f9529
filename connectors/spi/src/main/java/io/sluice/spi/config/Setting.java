package io.sluice.spi.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * One declared setting: key, type, default, unit, description, validator, and whether it is a secret.
 * Declared once; the YAML config, the Connect connector configs, validation and the generated reference
 * all come from these declarations, so they cannot drift apart.
 *
 * @param validator  returns null when the value is acceptable, else the reason (e.g. "must be at least 1")
 * @param formerKeys keys this setting had before a rename: they still load, with a warning naming {@code key}
 *                   (a user's existing config must not break)
 */
public record Setting<T>(String key, SettingType<T> type, T defaultValue, boolean required, String unit,
                         String description, Function<T, String> validator, boolean secret, List<String> formerKeys) {

    public Setting {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(description, "description");
        validator = validator == null ? v -> null : validator;
        formerKeys = List.copyOf(formerKeys);
    }

    /** This declaration (type, default, rule, description) under another key, e.g. in a YAML section. */
    public Setting<T> renamed(String newKey) {
        return new Setting<>(newKey, type, defaultValue, required, unit, description, validator, secret, List.of());
    }

    /** This declaration, required where it is read: for a component that cannot work without what others may leave unset. */
    public Setting<T> asRequired() {
        return new Setting<>(key, type, null, true, unit, description, validator, secret, formerKeys);
    }

    /**
     * This declaration (type, default, rule) under another key and with another description: for a place where
     * leaving it unset means something the shared description cannot say (a YAML key whose absence starts a service).
     */
    public Setting<T> renamed(String newKey, String newDescription) {
        return new Setting<>(newKey, type, defaultValue, required, unit, newDescription, validator, secret, List.of());
    }

    /**
     * This declaration under another name, optional and without a default: for a parameter that sets the same
     * thing elsewhere (an HTTP control call), so it is typed, validated and described exactly like the setting.
     */
    public Setting<T> asParameter(String name) {
        return new Setting<>(name, type, null, false, unit, description, validator, secret, List.of());
    }

    public static <T> Builder<T> builder(String key, SettingType<T> type) {
        return new Builder<>(key, type);
    }

    /** Formats a value for logs and reports, masking secrets. */
    public String display(Object value) {
        if (value == null) {
            return "(none)";
        }
        if (secret) {
            return "********";
        }
        @SuppressWarnings("unchecked")
        T v = (T) value;
        return type.format(v);
    }

    public static final class Builder<T> {
        private final String key;
        private final SettingType<T> type;
        private T defaultValue;
        private boolean required;
        private String unit = "";
        private String description;
        private Function<T, String> validator;
        private boolean secret;
        private final List<String> formerKeys = new ArrayList<>();

        private Builder(String key, SettingType<T> type) {
            this.key = key;
            this.type = type;
        }

        public Builder<T> defaultValue(T v) {
            this.defaultValue = v;
            return this;
        }

        public Builder<T> required() {
            this.required = true;
            return this;
        }

        public Builder<T> unit(String u) {
            this.unit = u;
            return this;
        }

        public Builder<T> description(String d) {
            this.description = d;
            return this;
        }

        public Builder<T> validator(Function<T, String> v) {
            this.validator = v;
            return this;
        }

        /** A key this setting was known by; still accepted, with a deprecation warning naming the current key. */
        public Builder<T> formerKey(String k) {
            this.formerKeys.add(k);
            return this;
        }

        public Builder<T> secret() {
            this.secret = true;
            return this;
        }

        public Setting<T> build() {
            return new Setting<>(key, type, defaultValue, required, unit, description, validator, secret, formerKeys);
        }
    }

    // Common validators, phrased so the message reads "<key>: <reason>".
    public static Function<Integer, String> atLeast(int min) {
        return v -> v < min ? "must be at least " + min : null;
    }

    public static Function<Long, String> atLeastLong(long min) {
        return v -> v < min ? "must be at least " + min : null;
    }

    /** Validator of a duration that must be longer than zero. */
    public static String positive(java.time.Duration d) {
        return d.isZero() || d.isNegative() ? "must be positive" : null;
    }
}
