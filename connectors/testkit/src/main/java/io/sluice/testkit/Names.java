package io.sluice.testkit;

/** Unique names for databases and topics: one counter per JVM, shared with the embedded servers' databases. */
final class Names {

    private Names() {
    }

    static String unique(String prefix) {
        return io.sluice.runtime.db.Names.unique(prefix);
    }
}
