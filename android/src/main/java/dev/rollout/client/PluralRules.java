package dev.rollout.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The CLDR cardinal plural rules of a locale (docs/pack-format.md, "Plural forms"): which category
 * a count takes, and which categories a plural message in that language needs. The rules are CLDR's
 * own, generated into PluralRulesCldr.java by scripts/generate-plural-rules.py from the same tables
 * as the Swift client's, so both choose the same form for every number.
 *
 * <p>A locale resolves whole, then by dropping subtags ({@code pt-PT-u-nu-latn}, {@code pt-PT},
 * {@code pt-AO}, {@code pt-Latn-PT}: Portugal's rules; {@code pt-BR}, {@code pt}: Brazil's;
 * {@code sr-Latn-RS}, {@code sr}; {@link #lookupTags}); {@code _} and {@code -} are
 * the same, case is ignored, and a POSIX {@code .UTF-8} or {@code @modifier} tail is dropped. A
 * language CLDR has no rules for gets CLDR's root rules, {@code other} for every number. Immutable.
 */
final class PluralRules {
    /** The categories in CLDR's order, the order rules are tried and ICU plurals are written in. */
    static final List<String> CATEGORIES =
        Collections.unmodifiableList(java.util.Arrays.asList("zero", "one", "two", "few", "many", "other"));

    private static final Map<String, Integer> LOCALES = new HashMap<>();
    /** Each rule set's {category, condition} rules in CLDR order, parsed once. */
    private static final List<List<Rule>> PARSED = new ArrayList<>();

    static {
        for (int k = 0; k < PluralRulesCldr.LOCALE_TAGS.length; k++) {
            LOCALES.put(PluralRulesCldr.LOCALE_TAGS[k], PluralRulesCldr.LOCALE_RULE_SETS[k]);
        }
        for (String[][] set : PluralRulesCldr.RULE_SETS) {
            List<Rule> rules = new ArrayList<>();
            for (String category : CATEGORIES) {
                for (String[] rule : set) {
                    if (rule[0].equals(category)) rules.add(new Rule(category, new PluralCondition(rule[1])));
                }
            }
            PARSED.add(Collections.unmodifiableList(rules));
        }
    }

    private static final class Rule {
        final String category;
        final PluralCondition condition;

        Rule(String category, PluralCondition condition) {
            this.category = category;
            this.condition = condition;
        }
    }

    /** The rule set's index in the generated table. */
    private final int ruleSet;
    private final boolean known;

    private PluralRules(int ruleSet, boolean known) {
        this.ruleSet = ruleSet;
        this.known = known;
    }

    /** The rules of {@code locale} (any BCP 47 or POSIX spelling), as {@link #lookupTags} finds them. */
    static PluralRules of(String locale) {
        for (String tag : lookupTags(locale)) {
            Integer number = LOCALES.get(tag);
            if (number != null) return new PluralRules(number, true);
        }
        return new PluralRules(0, false);
    }

    /**
     * The tags a locale's rules are looked up by, longest first: the whole locale ({@code pt-PT}, not
     * its language: Portugal's rules are not Brazil's) less a POSIX tail, then each form one subtag
     * shorter, as CLDR's parent locales go ({@code pt-AO-u-nu-latn}, {@code pt-ao}: Portugal's rules
     * through the table's {@code pt-ao}). A script subtag is left out first ({@code pt-Latn-PT} is
     * {@code pt-PT}): CLDR gives no script rules of its own (scripts/generate-plural-rules.py stops if
     * it ever does). The one rule both clients choose a locale's rules by (PluralRules.swift's
     * lookupTags).
     */
    static List<String> lookupTags(String locale) {
        // By grapheme cluster, as Swift cuts the tag: a "-" with a combining mark after it is no separator.
        List<String> tag = Graphemes.split(locale.toLowerCase(Locale.ROOT).replace('_', '-'));
        for (int k = 0; k < tag.size(); k++) {
            if (tag.get(k).equals(".") || tag.get(k).equals("@")) {
                tag = tag.subList(0, k);
                break;
            }
        }
        List<String> result = new ArrayList<>();
        if (tag.isEmpty()) return result;
        List<List<String>> subtags = new ArrayList<>();
        subtags.add(new ArrayList<>());
        for (String cluster : tag) {
            if (cluster.equals("-")) {
                subtags.add(new ArrayList<>());
            } else {
                subtags.get(subtags.size() - 1).add(cluster);
            }
        }
        // The script left out: the subtags kept, by index.
        List<List<String>> kept = new ArrayList<>();
        for (int k = 0; k < subtags.size(); k++) {
            if (k != 1 || !isScript(subtags.get(1))) kept.add(subtags.get(k));
        }
        for (int count = kept.size(); count > 0; count--) {
            StringBuilder joined = new StringBuilder();
            for (int k = 0; k < count; k++) {
                if (k > 0) joined.append('-');
                for (String cluster : kept.get(k)) joined.append(cluster);
            }
            result.add(joined.toString());
        }
        return result;
    }

    /** Four clusters, each one of a to z. */
    private static boolean isScript(List<String> subtag) {
        if (subtag.size() != 4) return false;
        for (String cluster : subtag) {
            if (cluster.length() != 1 || cluster.charAt(0) < 'a' || cluster.charAt(0) > 'z') return false;
        }
        return true;
    }

    /**
     * The category ({@code "zero"} ... {@code "other"}) of {@code numberText} (digits as shown,
     * {@code "1.50"}) in {@code locale}, or null when the text is not a number.
     */
    static String category(String locale, String numberText) {
        PluralOperands number = PluralOperands.parse(numberText);
        return number == null ? null : of(locale).category(number);
    }

    String category(PluralOperands number) {
        for (Rule rule : PARSED.get(ruleSet)) {
            if (rule.condition.matches(number)) return rule.category;
        }
        return "other";
    }

    /** Whether CLDR has rules for the locale's language (false: the root rules, {@code other} only). */
    boolean isKnown() {
        return known;
    }

    /** The categories the language uses, in CLDR order, {@code other} last: the cases a plural message in it needs. */
    List<String> categories() {
        List<String> categories = new ArrayList<>();
        for (Rule rule : PARSED.get(ruleSet)) categories.add(rule.category);
        categories.add("other");
        return Collections.unmodifiableList(categories);
    }

    /** A language with one form for every number (Japanese, Korean, Chinese...). False for a language CLDR has no rules for. */
    boolean hasOneForm() {
        return known && PARSED.get(ruleSet).isEmpty();
    }
}
