package io.sluice.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code sluice cutover}: tells a running {@code alter --postpone-cutover} to swap the tables now. */
@Command(name = "cutover", mixinStandardHelpOptions = true,
        description = {"Tell a running `sluice alter --postpone-cutover` to cut over now. The alter still refuses the",
                "cut-over (and exits 3) when verification fails or the lag is above its limit; this command only",
                "delivers the signal and reports whether the alter accepted it."})
final class CutoverCommand implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = {"-t", "--table"}, required = true, paramLabel = "SCHEMA.TABLE", description = "The table being altered.")
    private String table;

    @Option(names = "--url", paramLabel = "URL", defaultValue = StatusCommand.DEFAULT_URL,
            description = "HTTP endpoint of the running alter (default: ${DEFAULT-VALUE}).")
    private String url;

    @Override
    public Integer call() {
        String base = url.replaceAll("/+$", "");
        String status = StatusCommand.fetch(base + "/status");
        if (!status.contains("\"table\":\"" + table + "\"")) {
            throw new CliFailure(ExitCode.CONFIG_ERROR, base + " is not altering " + table + ": " + status.strip());
        }
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + "/control/cutover"))
                    .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 202) {
                throw new CliFailure(ExitCode.RUNTIME_FAILURE, "the alter did not take the signal (HTTP " + r.statusCode() + "): " + r.body().strip());
            }
            spec.commandLine().getOut().println(r.body().strip());
            return ExitCode.OK.code();
        } catch (IOException e) {
            throw new CliFailure(ExitCode.RUNTIME_FAILURE, "no alter answers at " + base + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(ExitCode.INTERRUPTED, "interrupted");
        }
    }
}
