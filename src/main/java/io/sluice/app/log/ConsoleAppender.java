package io.sluice.app.log;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.Layout;
import io.sluice.app.progress.LiveRegion;

/**
 * Sluice's console appender: formats with the configured layout, masks secrets in the whole line (stack
 * traces included), and prints through {@link LiveRegion} so that log lines scroll above the progress bars
 * instead of tearing them.
 */
public final class ConsoleAppender extends AppenderBase<ILoggingEvent> {
    private Layout<ILoggingEvent> layout;

    public void setLayout(Layout<ILoggingEvent> layout) {
        this.layout = layout;
    }

    @Override
    public void start() {
        if (layout == null) {
            addError("no layout set for the appender named " + name);
            return;
        }
        super.start();
    }

    @Override
    protected void append(ILoggingEvent event) {
        LiveRegion.get().printAbove(SecretMasker.mask(layout.doLayout(event)));
    }
}
