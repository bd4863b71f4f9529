package io.sluice.cli;

import io.sluice.app.config.ConfigReference;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** Prints (or writes) the configuration reference generated from the settings declarations. */
@Command(name = "config-reference", mixinStandardHelpOptions = true,
        description = "Print the configuration reference (every key with type, default and description) as Markdown; "
                + "the same text as docs/reference/config.md.")
final class ConfigReferenceCommand implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    private java.io.PrintWriter out() {
        return spec.commandLine().getOut();
    }

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write to FILE instead of standard output.")
    private Path output;

    @Option(names = "--example", description = "Print a complete example config file instead.")
    private boolean example;

    @Override
    public Integer call() throws IOException {
        String text = example ? ConfigReference.EXAMPLE : ConfigReference.markdown();
        if (output == null) {
            out().print(text);
            out().flush();
        } else if (example) {
            java.nio.file.Files.writeString(output, text);
        } else {
            ConfigReference.write(output);
        }
        return ExitCode.OK.code();
    }
}
