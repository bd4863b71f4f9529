package io.sluice.app.log;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.pattern.CompositeConverter;

/**
 * Logback conversion word {@code %masked(...)}: masks registered secrets in whatever the inner pattern
 * produces. For user-supplied logback configurations (file appenders and the like): start such a pattern
 * with {@code %nopex} and put {@code %ex} inside the parentheses, or logback appends an unmasked stack trace
 * ({@code %nopex} right after the closing parenthesis is read as literal text).
 */
public final class MaskingConverter extends CompositeConverter<ILoggingEvent> {
    @Override
    protected String transform(ILoggingEvent event, String in) {
        return SecretMasker.mask(in);
    }
}
