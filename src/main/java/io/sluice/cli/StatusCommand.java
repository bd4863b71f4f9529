package io.sluice.cli;

import io.sluice.app.config.ConfigLoader;
import io.sluice.app.config.ConfigSchema;
import io.sluice.app.http.StatusJson;
import io.sluice.app.progress.Phase;
import io.sluice.app.progress.PipelineStatus;
import io.sluice.app.progress.ProgressFormat;
import io.sluice.app.report.RunReport;
import io.sluice.spi.config.Settings;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code sluice status}: asks a running instance's HTTP endpoint where it is. */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Show a running instance's phase, per-table copy progress, stream lag and throttle state.",
                "Exits 0 when the instance answers and has not failed, 4 when it cannot be reached or its run failed."})
final class StatusCommand implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    private java.io.PrintWriter out() {
        return spec.commandLine().getOut();
    }
    static final String DEFAULT_URL = "http://127.0.0.1:8484";

    @Option(names = "--url", paramLabel = "URL", description = "The instance's HTTP endpoint (default: from --config, else " + DEFAULT_URL + ").")
    private String url;

    @Option(names = {"-c", "--config"}, paramLabel = "FILE", description = "Take the endpoint from this config file's http section.")
    private Path config;

    @Option(names = "--json", description = "Print the raw JSON document of GET /status (with --report: of GET /report).")
    private boolean json;

    @Option(names = "--report", description = "Print the run report: per table rows copied, copy time and rate, change events "
            + "applied by operation and skipped as already copied, stream lag.")
    private boolean report;

    @Override
    public Integer call() {
        String base = endpoint();
        if (report) {
            String body = fetch(base + "/report");
            if (json) {
                out().print(body);
            } else {
                try {
                    RunReport.read(body).lines().forEach(out()::println);
                } catch (IllegalArgumentException e) {
                    throw new CliFailure(ExitCode.RUNTIME_FAILURE, base + " answered, but not like Sluice: " + e.getMessage());
                }
            }
            out().flush();
            return ExitCode.OK.code();
        }
        String body = fetch(base + "/status");
        if (json) {
            out().print(body);
            out().flush();
            return ExitCode.OK.code();
        }
        PipelineStatus status;
        try {
            status = StatusJson.read(body);
        } catch (IllegalArgumentException e) {
            throw new CliFailure(ExitCode.RUNTIME_FAILURE, base + " answered, but not like Sluice: " + e.getMessage());
        }
        for (String line : ProgressFormat.lines(status, 120)) {
            out().println(line);
        }
        out().println("in this phase since " + status.since());
        return status.phase() == Phase.FAILED ? ExitCode.RUNTIME_FAILURE.code() : ExitCode.OK.code();
    }

    private String endpoint() {
        if (url != null) {
            return url.replaceAll("/+$", "");
        }
        if (config != null) {
            if (!java.nio.file.Files.isRegularFile(config)) {
                throw new CliFailure(ExitCode.CONFIG_ERROR, config + ": config file not found");
            }
            Settings.Values http = ConfigLoader.loadSection(config, ConfigSchema.HTTP);
            String bind = http.get(ConfigSchema.HTTP_BIND);
            String host = bind.equals("0.0.0.0") || bind.equals("::") ? "127.0.0.1" : bind;
            return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + http.get(ConfigSchema.HTTP_PORT);
        }
        return DEFAULT_URL;
    }

    static String fetch(String url) {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build();
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new CliFailure(ExitCode.RUNTIME_FAILURE, url + " answered HTTP " + response.statusCode() + ": " + response.body().strip());
            }
            return response.body();
        } catch (IOException | IllegalArgumentException e) {
            throw new CliFailure(ExitCode.RUNTIME_FAILURE, "no Sluice instance answers at " + url + " (" + e.getClass().getSimpleName()
                    + "): is `sluice replicate` running, with http.enabled, and is the port right (--url or --config)?", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(ExitCode.INTERRUPTED, "interrupted");
        }
    }
}
