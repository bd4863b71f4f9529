package io.sluice.app.config;

import io.sluice.spi.config.Setting;
import io.sluice.spi.config.Settings;

import java.util.List;
import java.util.Map;

/**
 * One top-level section of the YAML config file.
 *
 * @param name        the YAML key ({@code source}, {@code copier}...)
 * @param description what the section is for, for the generated reference
 * @param declared    every setting the component declares (for copier and applier: their connector config)
 * @param derived     keys of {@code declared} that Sluice fills in from other sections (pipeline name, URLs,
 *                    tables...), each with where it comes from (e.g. {@code kafka.partitions}); they are not
 *                    accepted in this section, so each thing is said once
 */
public record ConfigSection(String name, String description, Settings declared, Map<String, String> derived) {

    public ConfigSection {
        derived = Map.copyOf(derived);
        for (String key : derived.keySet()) {
            if (declared.get(key) == null) {
                // Catches a renamed component setting at start-up and in the tests, not in a user's run.
                throw new IllegalStateException(name + ": derived key " + key + " is not declared by the component");
            }
        }
    }

    public static ConfigSection of(String name, String description, Settings settings) {
        return new ConfigSection(name, description, settings, Map.of());
    }

    /**
     * The settings a user may write in this section, under their YAML keys ({@link Settings#yamlKey}: the
     * components' dotted connector keys in kebab-case); the dotted keys still load, with a warning.
     */
    public Settings userSettings() {
        return declared.only(s -> !derived.containsKey(s.key())).yamlStyle();
    }

    /**
     * {@code text} (a description or a component's message, which name the declared keys) with this section's keys as
     * the YAML file writes them; {@code except}'s own key is left alone (a description may name another system's key
     * of the same name).
     */
    public String inYamlTerms(String text, Setting<?> except) {
        Settings user = userSettings();
        for (Setting<?> other : user.all()) {
            if (other != except && !other.key().equals(user.name(other))) {
                text = text.replaceAll("(?<![\\w.-])" + java.util.regex.Pattern.quote(other.key()) + "(?![\\w-])",
                        java.util.regex.Matcher.quoteReplacement(user.name(other)));
            }
        }
        return text;
    }
}
