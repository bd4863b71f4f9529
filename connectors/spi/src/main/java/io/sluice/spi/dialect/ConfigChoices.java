package io.sluice.spi.dialect;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The config spelling of the choice enums ({@link ZeroDates}, {@link NulCharacters}, {@link MySqlTime}): the lower-case name. */
final class ConfigChoices {
    private ConfigChoices() {
    }

    static String configValue(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    static <E extends Enum<E>> E parse(Class<E> type, String value) {
        for (E e : type.getEnumConstants()) {
            if (configValue(e).equals(value)) {
                return e;
            }
        }
        throw new IllegalArgumentException("must be " + Arrays.stream(type.getEnumConstants()).map(ConfigChoices::configValue)
                .collect(Collectors.joining(" or ")));
    }

    static <E extends Enum<E>> String check(Class<E> type, String value) {
        try {
            parse(type, value);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }
}
