package io.sluice.applier.connect;

import io.sluice.applier.TargetMapping;

import java.util.Map;

/** Test access to the connector's package-private config helpers. */
public final class ApplierSinkConnectorAccess {
    private ApplierSinkConnectorAccess() {
    }

    public static Map<String, String> connectorConfig(Map<String, String> settings) {
        return ApplierSinkConnector.connectorConfig(settings, 1);
    }

    public static TargetMapping mapping(Map<String, String> props) {
        return ApplierSinkConnector.mapping(props);
    }
}
