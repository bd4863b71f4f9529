package io.sluice.spi.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The declared type of a setting: how raw input (YAML scalar, Connect property string) becomes a typed
 * value, how it prints back, and what form the error message asks for.
 */
public abstract class SettingType<T> {
    private final String name;
    private final String expectedForm;

    protected SettingType(String name, String expectedForm) {
        this.name = name;
        this.expectedForm = expectedForm;
    }

    public String name() {
        return name;
    }

    /** Human description of accepted input, used in error messages and the reference. */
    public String expectedForm() {
        return expectedForm;
    }

    /** Parses raw input; throws IllegalArgumentException with a short reason on bad input. */
    public abstract T parse(Object raw);

    /** The canonical text form (round-trips through {@link #parse}). */
    public String format(T value) {
        return String.valueOf(value);
    }

    public static final SettingType<String> STRING = new SettingType<>("string", "text") {
        @Override
        public String parse(Object raw) {
            if (raw instanceof String s) {
                return s;
            }
            if (raw instanceof Number || raw instanceof Boolean) {
                return raw.toString();
            }
            throw new IllegalArgumentException("expected text");
        }
    };

    public static final SettingType<Integer> INT = new SettingType<>("int", "a whole number") {
        @Override
        public Integer parse(Object raw) {
            try {
                return raw instanceof Number n ? Math.toIntExact(n.longValue()) : Integer.parseInt(raw.toString().trim().replace("_", ""));
            } catch (NumberFormatException | ArithmeticException e) {
                throw new IllegalArgumentException("expected a whole number");
            }
        }
    };

    public static final SettingType<Long> LONG = new SettingType<>("long", "a whole number") {
        @Override
        public Long parse(Object raw) {
            try {
                return raw instanceof Number n ? n.longValue() : Long.parseLong(raw.toString().trim().replace("_", ""));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("expected a whole number");
            }
        }
    };

    public static final SettingType<Boolean> BOOLEAN = new SettingType<>("boolean", "true or false") {
        @Override
        public Boolean parse(Object raw) {
            if (raw instanceof Boolean b) {
                return b;
            }
            String s = raw.toString().trim().toLowerCase(Locale.ROOT);
            return switch (s) {
                case "true", "yes", "on" -> true;
                case "false", "no", "off" -> false;
                default -> throw new IllegalArgumentException("expected true or false");
            };
        }
    };

    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    /** Durations are typed: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 1m30s}. */
    public static final SettingType<Duration> DURATION_TYPE = new SettingType<>("duration", "a duration such as 500ms, 30s, 5m or 1h") {
        @Override
        public Duration parse(Object raw) {
            String s = raw.toString().trim().toLowerCase(Locale.ROOT);
            if (s.isEmpty()) {
                throw new IllegalArgumentException("empty duration");
            }
            Matcher m = DURATION.matcher(s);
            Duration total = Duration.ZERO;
            int at = 0;
            while (m.find()) {
                if (m.start() != at) {
                    break;
                }
                long n = Long.parseLong(m.group(1));
                total = total.plus(switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofDays(n);
                });
                at = m.end();
                while (at < s.length() && s.charAt(at) == ' ') {
                    at++;
                }
            }
            if (at != s.length()) {
                throw new IllegalArgumentException("expected a duration with a unit, such as 500ms, 30s, 5m or 1h");
            }
            return total;
        }

        @Override
        public String format(Duration d) {
            long ms = d.toMillis();
            if (ms % 3_600_000 == 0 && ms > 0) {
                return ms / 3_600_000 + "h";
            }
            if (ms % 60_000 == 0 && ms > 0) {
                return ms / 60_000 + "m";
            }
            if (ms % 1000 == 0) {
                return ms / 1000 + "s";
            }
            return ms + "ms";
        }
    };

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|kib|kb|k|mib|mb|m|gib|gb|g)?");

    /** Byte sizes: {@code 4MiB}, {@code 256KiB}, {@code 1048576}; KB/MB are taken as binary units too. */
    public static final SettingType<Long> BYTES = new SettingType<>("bytes", "a size such as 512KiB, 4MiB or 1GiB") {
        @Override
        public Long parse(Object raw) {
            if (raw instanceof Number n) {
                return n.longValue();
            }
            Matcher m = SIZE.matcher(raw.toString().trim().toLowerCase(Locale.ROOT));
            if (!m.matches()) {
                throw new IllegalArgumentException("expected a size such as 512KiB, 4MiB or 1GiB");
            }
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? "b" : m.group(2);
            return switch (unit.charAt(0)) {
                case 'k' -> n << 10;
                case 'm' -> n << 20;
                case 'g' -> n << 30;
                default -> n;
            };
        }

        @Override
        public String format(Long v) {
            if (v > 0 && v % (1L << 30) == 0) {
                return (v >> 30) + "GiB";
            }
            if (v > 0 && v % (1L << 20) == 0) {
                return (v >> 20) + "MiB";
            }
            if (v > 0 && v % (1L << 10) == 0) {
                return (v >> 10) + "KiB";
            }
            return v + "B";
        }
    };

    /** Comma-separated list (or a YAML sequence). */
    public static final SettingType<List<String>> LIST = new SettingType<>("list", "a list (YAML sequence or comma-separated)") {
        @Override
        public List<String> parse(Object raw) {
            if (raw instanceof List<?> l) {
                return l.stream().map(String::valueOf).toList();
            }
            String s = raw.toString().trim();
            return s.isEmpty() ? List.of() : Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
        }

        @Override
        public String format(List<String> v) {
            return String.join(",", v);
        }
    };

    /** Tables in the grammar of {@link io.sluice.spi.model.TableList}: a YAML sequence or comma-separated schema.table. */
    public static final SettingType<List<io.sluice.spi.model.TableId>> TABLES = new SettingType<>("tables",
            "schema.table entries, comma-separated or a YAML sequence; double-quote a name holding a dot or comma") {
        @Override
        public List<io.sluice.spi.model.TableId> parse(Object raw) {
            if (raw instanceof List<?> l) {
                return l.stream().map(x -> io.sluice.spi.model.TableList.parseOne(String.valueOf(x))).toList();
            }
            return io.sluice.spi.model.TableList.parse(raw.toString());
        }

        @Override
        public String format(List<io.sluice.spi.model.TableId> v) {
            return io.sluice.spi.model.TableList.format(v);
        }
    };
}
