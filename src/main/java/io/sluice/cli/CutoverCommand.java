package io.sluice.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

/** {@code sluice cutover}: tells a running {@code alter --postpone-cutover} to swap the tables now (issue 6). */
@Command(name = "cutover", mixinStandardHelpOptions = true,
        description = {"Tell a running `sluice alter --postpone-cutover` to cut over now. The cut-over is still refused",
                "(exit 3) when verification fails or the lag is above the limit."})
final class CutoverCommand implements Callable<Integer> {

    @Option(names = {"-t", "--table"}, required = true, paramLabel = "SCHEMA.TABLE", description = "The table being altered.")
    private String table;

    @Option(names = "--url", paramLabel = "URL", defaultValue = StatusCommand.DEFAULT_URL,
            description = "HTTP endpoint of the running alter (default: ${DEFAULT-VALUE}).")
    private String url;

    @Override
    public Integer call() {
        throw CliFailure.notImplemented("cutover", "online schema change arrives with issue 6.");
    }
}
