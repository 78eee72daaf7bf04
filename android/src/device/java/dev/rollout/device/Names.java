package dev.rollout.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The locale and region grammar of rollout's flags (LocaleTag.swift, Region.swift). */
final class Names {
    private Names() {}

    private static final Set<String> ASSIGNED_REGIONS = new HashSet<>(Arrays.asList((
            "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI " +
            "BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN " +
            "CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK " +
            "FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM " +
            "HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN " +
            "KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK " +
            "ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP " +
            "NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW " +
            "SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF " +
            "TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI " +
            "VN VU WF WS YE YT ZA ZM ZW ").trim().split(" ")));

    /** Region.parse, then the device's own refusal of "*"; messages as rollout device gives them. */
    static String region(String text) throws DeviceError {
        if (text.equals("*")) throw DeviceError.usage("--region names the device's own region, not *");
        boolean letters = text.length() == 2;
        for (int i = 0; i < text.length() && letters; i++) {
            char c = text.charAt(i);
            letters = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
        }
        String upper = text.toUpperCase(Locale.ROOT);
        if (!letters || !ASSIGNED_REGIONS.contains(upper)) {
            throw DeviceError.usage("--region: region \"" + text
                    + "\" is not an ISO 3166-1 alpha-2 code such as TR, VN or US (or * for every region)");
        }
        return upper;
    }

    /** LocaleTag.parse: canonical BCP 47 only, or a usage error with the parse error's message. */
    static String locale(String text) throws DeviceError {
        String canonical = canonicalTag(text);
        if (canonical == null) throw DeviceError.usage(invalid(text));
        if (canonical.startsWith("\u0000")) throw DeviceError.usage(canonical.substring(1));
        if (!canonical.equals(text)) {
            throw DeviceError.usage("locale \"" + text + "\" must be written \"" + canonical + "\"");
        }
        return text;
    }

    private static String invalid(String text) {
        return "\"" + text + "\" is not a BCP 47 locale such as tr-TR, tr, zh-Hant-TW";
    }

    /** The tag written canonically; null when invalid; a NUL-prefixed message for a repeated variant. */
    private static String canonicalTag(String text) {
        String[] parts = text.split("-", -1);
        if (text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 64) return null;
        for (String part : parts) {
            if (part.isEmpty() || !alphanumeric(part)) return null;
        }
        String first = parts[0];
        if (first.length() < 2 || first.length() > 3 || !letters(first)) return null;
        int index = 1;
        List<String> subtags = new ArrayList<>();
        subtags.add(first.toLowerCase(Locale.ROOT));
        if (index < parts.length && parts[index].length() == 4 && letters(parts[index])) {
            String script = parts[index];
            subtags.add(script.substring(0, 1).toUpperCase(Locale.ROOT) + script.substring(1).toLowerCase(Locale.ROOT));
            index++;
        }
        if (index < parts.length && ((parts[index].length() == 2 && letters(parts[index]))
                || (parts[index].length() == 3 && digits(parts[index])))) {
            subtags.add(parts[index].toUpperCase(Locale.ROOT));
            index++;
        }
        List<String> variants = new ArrayList<>();
        while (index < parts.length) {
            String v = parts[index];
            boolean isVariant = (v.length() >= 5 && v.length() <= 8) || (v.length() == 4 && isDigit(v.charAt(0)));
            if (!isVariant) return null;
            String lower = v.toLowerCase(Locale.ROOT);
            if (variants.contains(lower)) {
                return "\u0000locale \"" + text + "\" has the variant " + lower
                        + " twice; BCP 47 (RFC 5646) allows each variant once";
            }
            variants.add(lower);
            index++;
        }
        subtags.addAll(variants);
        return String.join("-", subtags);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean letters(String s) {
        for (int i = 0; i < s.length(); i++) if (!isLetter(s.charAt(i))) return false;
        return true;
    }

    private static boolean digits(String s) {
        for (int i = 0; i < s.length(); i++) if (!isDigit(s.charAt(i))) return false;
        return true;
    }

    private static boolean alphanumeric(String s) {
        for (int i = 0; i < s.length(); i++) if (!isLetter(s.charAt(i)) && !isDigit(s.charAt(i))) return false;
        return true;
    }
}
