package io.sluice.runtime;

import java.util.List;
import java.util.Map;

/**
 * The worker's answer to {@code PUT /connector-plugins/{plugin}/config/validate}, reduced to what callers act
 * on: how many errors, and the messages per config key (only keys that have errors appear).
 *
 * @param connectorClass the plugin that validated the config
 * @param errorCount     number of errors the worker counted
 * @param errors         config key to its error messages
 */
public record ConfigValidation(String connectorClass, int errorCount, Map<String, List<String>> errors) {

    public ConfigValidation {
        errors = Map.copyOf(errors);
    }

    public boolean isValid() {
        return errorCount == 0;
    }
}
