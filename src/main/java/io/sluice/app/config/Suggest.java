package io.sluice.app.config;

import java.util.Collection;
import java.util.Locale;

/** "Did you mean" for names the user typed: the closest candidate within a small edit distance. */
final class Suggest {
    private Suggest() {
    }

    /** {@code " (did you mean 'x'?)"}, or empty when nothing is close. */
    static String didYouMean(String typed, Collection<String> candidates) {
        String best = closest(typed, candidates);
        return best == null ? "" : " (did you mean '" + best + "'?)";
    }

    static String closest(String typed, Collection<String> candidates) {
        String best = null;
        // Allow roughly one typo per four characters, at least two: short keys need some slack too.
        int limit = Math.max(2, typed.length() / 4);
        int bestDistance = limit + 1;
        for (String c : candidates) {
            int d = c.equalsIgnoreCase(typed) ? 0 : editDistance(typed.toLowerCase(Locale.ROOT), c.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = c;
            }
        }
        return best;
    }

    /** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps cost 1. */
    static int editDistance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
