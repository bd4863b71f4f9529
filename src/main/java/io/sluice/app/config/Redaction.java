package io.sluice.app.config;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Passwords written into JDBC URLs: {@code jdbc:mysql://user:secret@host/db} and
 * {@code ?password=secret} / {@code ;password=secret}. The URL itself is not a secret setting (it is shown
 * in logs and errors), so these parts are found, registered as secrets and masked when shown.
 */
public final class Redaction {
    private static final Pattern USER_INFO = Pattern.compile("(//[^/:@?;]*:)([^@/?;]*)(@)");
    private static final Pattern PARAM = Pattern.compile("([?&;](?i:password|pwd|pass|passwd|sslpassword|keystorepassword|truststorepassword)=)([^&;]*)");

    private Redaction() {
    }

    /** The password parts of a URL (empty when there are none). */
    public static List<String> secretsIn(String url) {
        List<String> out = new ArrayList<>();
        if (url == null) {
            return out;
        }
        for (Pattern p : List.of(USER_INFO, PARAM)) {
            Matcher m = p.matcher(url);
            while (m.find()) {
                if (!m.group(2).isEmpty()) {
                    out.add(m.group(2));
                }
            }
        }
        return out;
    }

    /** The URL with its password parts replaced by asterisks; everything else kept, for a useful message. */
    public static String url(String url) {
        if (url == null) {
            return null;
        }
        String out = USER_INFO.matcher(url).replaceAll("$1********$3");
        return PARAM.matcher(out).replaceAll("$1********");
    }
}
