package io.sluice.testkit;

/**
 * A database server a test can use over TCP on 127.0.0.1 with password authentication, as the pipeline
 * would in production (no sockets, no trust auth). The contract is {@link io.sluice.runtime.db.DatabaseServer}'s
 * (the embedded servers are production code, for {@code sluice quickstart}); this type stays so tests keep
 * one name for embedded and Docker servers alike.
 *
 * <p>{@link #user()} is an administrator (tests create schemas and tables with it); {@link #cdcUser()} has
 * only what change-data capture needs (replication), so a connector configured with it proves the
 * documented privileges suffice.
 */
public interface DatabaseServer extends io.sluice.runtime.db.DatabaseServer {
}
