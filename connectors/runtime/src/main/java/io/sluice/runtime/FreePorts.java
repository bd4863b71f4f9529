package io.sluice.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Finds TCP ports on 127.0.0.1 for servers that must be told their port up front (Kafka's listeners,
 * database servers). Asking the kernel for port 0 and releasing it leaves a small window in which another
 * process could take the port; callers that can bind to 0 themselves (the Connect REST server) should.
 */
public final class FreePorts {

    private FreePorts() {
    }

    /** A port that was free on 127.0.0.1 a moment ago. */
    public static int find() {
        return find(1)[0];
    }

    /**
     * {@code n} distinct ports that were free on 127.0.0.1 a moment ago. They are held open together while chosen:
     * two calls to {@link #find()} one after the other return the same port about once in 10,000 pairs (the kernel
     * hands a just-released port out again), which started a Kafka broker with its two listeners on one port.
     */
    public static int[] find(int n) {
        ServerSocket[] sockets = new ServerSocket[n];
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                sockets[i] = new ServerSocket();
                sockets[i].setReuseAddress(false);
                sockets[i].bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot find " + n + " free TCP port(s) on 127.0.0.1", e);
        } finally {
            for (ServerSocket s : sockets) {
                if (s != null) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // closing a listening socket we never used; nothing to undo
                    }
                }
            }
        }
    }

    /**
     * Returns {@code port} if it can be bound on 127.0.0.1, else fails with a message that says what to do:
     * a fixed port that is taken is a local setup problem, not a bug.
     */
    public static int requireFree(int port, String forWhat) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return port;
        } catch (IOException e) {
            throw new IllegalStateException("Port " + port + " (for " + forWhat + ") is already in use on 127.0.0.1: "
                    + "stop the process holding it (see `ss -ltnp 'sport = :" + port + "'`) or choose another port", e);
        }
    }
}
