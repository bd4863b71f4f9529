package io.sluice.spi.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves {@code ${env:NAME}} and {@code ${file:/path}} references, so secrets live outside the config
 * file. A reference that cannot be resolved is an error naming the variable or file (never its content).
 */
public final class SecretResolver {
    private static final Pattern REF = Pattern.compile("\\$\\{(env|file):([^}]+)}");

    private SecretResolver() {
    }

    public static String resolve(String text) {
        if (text == null || !text.contains("${")) {
            return text;
        }
        Matcher m = REF.matcher(text);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String value;
            if (m.group(1).equals("env")) {
                value = System.getenv(m.group(2));
                if (value == null) {
                    throw new IllegalArgumentException("environment variable " + m.group(2) + " is not set");
                }
            } else {
                try {
                    value = Files.readString(Path.of(m.group(2)), StandardCharsets.UTF_8).strip();
                } catch (IOException e) {
                    throw new IllegalArgumentException("cannot read secret file " + m.group(2) + ": " + e.getClass().getSimpleName());
                }
            }
            m.appendReplacement(sb, Matcher.quoteReplacement(value));
        }
        m.appendTail(sb);
        return sb.toString();
    }
}
