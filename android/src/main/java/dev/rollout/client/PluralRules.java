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
 * <p>A locale resolves by dropping subtags ({@code pt-PT-u-nu-latn}, {@code pt-PT}: Portugal's rules;
 * {@code pt-BR}, {@code pt}: Brazil's; {@code sr-Latn-RS}, {@code sr}); {@code _} and {@code -} are
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

    /** The rules of {@code locale} (any BCP 47 or POSIX spelling). */
    static PluralRules of(String locale) {
        // By grapheme cluster, as Swift cuts the tag: a "-" with a combining mark after it is no separator.
        List<String> tag = Graphemes.split(locale.toLowerCase(Locale.ROOT).replace('_', '-'));
        for (int k = 0; k < tag.size(); k++) {
            if (tag.get(k).equals(".") || tag.get(k).equals("@")) {
                tag = tag.subList(0, k);
                break;
            }
        }
        while (!tag.isEmpty()) {
            Integer number = LOCALES.get(String.join("", tag));
            if (number != null) return new PluralRules(number, true);
            tag = tag.subList(0, Math.max(0, tag.lastIndexOf("-")));
        }
        return new PluralRules(0, false);
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
