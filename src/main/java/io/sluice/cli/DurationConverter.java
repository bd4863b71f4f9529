package io.sluice.cli;

import io.sluice.spi.config.SettingType;
import picocli.CommandLine;

import java.time.Duration;

/** Command-line durations in the config file's form (30s, 5m, 1h), so users learn one syntax. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        try {
            return SettingType.DURATION_TYPE.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException("'" + value + "': " + e.getMessage());
        }
    }
}
