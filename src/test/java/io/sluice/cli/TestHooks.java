package io.sluice.cli;

import io.sluice.app.config.ConfigValidator;

import java.util.function.Supplier;

/** Test access to the CLI's package-private hooks from other test packages. */
public final class TestHooks {
    private TestHooks() {
    }

    public static void validators(Supplier<ConfigValidator> supplier) {
        ReplicateCommand.validators = supplier;
    }
}
