package dev.rollout.client;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One immutable translation pack: the strings of one locale at one content version (docs/pack-format.md). Parsing
 * is strict: a file with a field a schemaVersion 2 pack does not have, a value of the wrong type, or a checksum its
 * content does not hash to is refused, naming the file and the first problem.
 */
final class Pack {
    static final int CURRENT_SCHEMA_VERSION = 2;
    static final List<Integer> SUPPORTED_SCHEMA_VERSIONS = Collections.singletonList(2);
    static final int MAXIMUM_CONTENT_VERSION = 1_000_000_000;
    /** Sorted, for the message that lists them. */
    private static final List<String> FIELDS = Collections.unmodifiableList(Arrays.asList(
            "checksum", "contentVersion", "fallbackLocale", "locale", "minAppVersion", "schemaVersion", "strings"));
    private static final List<String> REQUIRED =
            Arrays.asList("schemaVersion", "locale", "contentVersion", "minAppVersion", "strings");
    private static final String CHECKSUM_PREFIX = "sha256:";

    private final String locale;
    private final int schemaVersion;
    private final int contentVersion;
    private final AppVersion minAppVersion;
    private final String fallbackLocale;
    private final Map<String, String> strings;
    private final String declaredChecksum;

    private Pack(String locale, int schemaVersion, int contentVersion, AppVersion minAppVersion, String fallbackLocale,
            Map<String, String> strings, String declaredChecksum) {
        this.locale = locale;
        this.schemaVersion = schemaVersion;
        this.contentVersion = contentVersion;
        this.minAppVersion = minAppVersion;
        this.fallbackLocale = fallbackLocale;
        this.strings = Collections.unmodifiableMap(strings);
        this.declaredChecksum = declaredChecksum;
    }

    String locale() {
        return locale;
    }

    int schemaVersion() {
        return schemaVersion;
    }

    int contentVersion() {
        return contentVersion;
    }

    AppVersion minAppVersion() {
        return minAppVersion;
    }

    /** The locale whose pack a lookup tries next, or null. */
    String fallbackLocale() {
        return fallbackLocale;
    }

    /** Key to text. */
    Map<String, String> strings() {
        return strings;
    }

    /** The checksum the file declared, already verified to match; or null when it declared none. */
    String declaredChecksum() {
        return declaredChecksum;
    }

    PackId id() {
        return new PackId(locale, contentVersion);
    }

    /** RFC 8785 canonical bytes of the pack without its {@code checksum} member: the input of the checksum. */
    byte[] canonicalBytes() {
        Map<String, Object> object = new LinkedHashMap<>();
        object.put("locale", locale);
        object.put("schemaVersion", (long) schemaVersion);
        object.put("contentVersion", (long) contentVersion);
        object.put("minAppVersion", minAppVersion.toString());
        object.put("strings", new LinkedHashMap<String, Object>(strings));
        if (fallbackLocale != null) object.put("fallbackLocale", fallbackLocale);
        return Json.canonical(object);
    }

    /** {@code sha256:} and the lowercase hex SHA-256 of {@link #canonicalBytes}. */
    String checksum() {
        return CHECKSUM_PREFIX + Sha256.hex(Sha256.digest(canonicalBytes()));
    }

    private static boolean isWellFormedChecksum(String text) {
        return text.startsWith(CHECKSUM_PREFIX) && Wire.isSha256Hex(text.substring(CHECKSUM_PREFIX.length()));
    }

    /** A pack file, its declared checksum verified; {@code source} (a path or a pack id) starts every message. */
    static Pack parse(byte[] bytes, String source) throws DocumentException {
        return parse(bytes, source, true);
    }

    /**
     * A pack file; with {@code verifyChecksum} false a declared checksum is neither checked nor kept (to read the id
     * of a stored pack that is verified elsewhere).
     */
    static Pack parse(byte[] bytes, String source, boolean verifyChecksum) throws DocumentException {
        Object document;
        try {
            document = Json.parse(bytes);
        } catch (JsonException e) {
            throw DocumentException.notJson(source, e);
        }
        Map<String, Object> object = Json.object(document);
        if (object == null) {
            throw DocumentException.in(source, "a pack is a JSON object, found " + Json.kindName(document));
        }
        // The checks in this order, so a file with several faults is refused for the first, as the Swift client does.
        checkNames(object, source);
        int schemaVersion = schemaVersion(object, source);
        String locale = locale(object, source);
        int contentVersion = contentVersion(object, source);
        AppVersion minAppVersion = minAppVersion(object, source);
        String fallbackLocale = fallbackLocale(object, locale, source);
        Map<String, String> strings = strings(object, source);
        Pack pack = new Pack(locale, schemaVersion, contentVersion, minAppVersion, fallbackLocale, strings, null);
        if (!verifyChecksum || !object.containsKey("checksum")) return pack;
        String declared = declaredChecksum(object.get("checksum"), pack, source);
        return new Pack(locale, schemaVersion, contentVersion, minAppVersion, fallbackLocale, strings, declared);
    }

    /** No field a schemaVersion 2 pack does not have, and every one it needs. */
    private static void checkNames(Map<String, Object> object, String source) throws DocumentException {
        String unknown = null;
        for (String name : object.keySet()) {
            if (!FIELDS.contains(name) && (unknown == null || Graphemes.SWIFT_ORDER.compare(name, unknown) < 0)) unknown = name;
        }
        if (unknown != null) {
            throw DocumentException.in(source, "unknown field \"" + unknown + "\"; a schemaVersion 2 pack has only "
                    + String.join(", ", FIELDS));
        }
        for (String field : REQUIRED) {
            if (!object.containsKey(field)) {
                throw DocumentException.in(source, "missing required field \"" + field + "\"");
            }
        }
    }

    private static int schemaVersion(Map<String, Object> object, String source) throws DocumentException {
        Object value = object.get("schemaVersion");
        Long schemaVersion = Json.integer(value);
        if (schemaVersion == null) {
            throw DocumentException.in(source, "\"schemaVersion\" must be an integer, found " + Json.kindName(value));
        }
        boolean fitsInt = schemaVersion >= Integer.MIN_VALUE && schemaVersion <= Integer.MAX_VALUE;
        if (!fitsInt || !SUPPORTED_SCHEMA_VERSIONS.contains(schemaVersion.intValue())) {
            if (schemaVersion > CURRENT_SCHEMA_VERSION) {
                throw DocumentException.in(source, "schemaVersion " + schemaVersion
                        + " is newer than this rollout understands (" + supported() + "); upgrade rollout");
            }
            throw DocumentException.in(source,
                    "schemaVersion " + schemaVersion + " is not supported (supported: " + supported() + ")");
        }
        return (int) (long) schemaVersion;
    }

    private static String supported() {
        List<String> versions = new ArrayList<>();
        for (int version : SUPPORTED_SCHEMA_VERSIONS) versions.add(Integer.toString(version));
        return String.join(", ", versions);
    }

    private static String locale(Map<String, Object> object, String source) throws DocumentException {
        Object value = object.get("locale");
        String locale = Json.string(value);
        if (locale == null) {
            throw DocumentException.in(source, "\"locale\" must be a string, found " + Json.kindName(value));
        }
        try {
            LocaleTags.parse(locale);
        } catch (LocaleTags.InvalidTagException e) {
            throw DocumentException.in(source, e.getMessage());
        }
        return locale;
    }

    private static int contentVersion(Map<String, Object> object, String source) throws DocumentException {
        Object value = object.get("contentVersion");
        Long contentVersion = Json.integer(value);
        if (contentVersion == null) {
            throw DocumentException.in(source, "\"contentVersion\" must be an integer, found " + describe(value));
        }
        if (contentVersion < 1 || contentVersion > MAXIMUM_CONTENT_VERSION) {
            throw DocumentException.in(source, "\"contentVersion\" must be between 1 and " + MAXIMUM_CONTENT_VERSION
                    + ", found " + contentVersion);
        }
        return (int) (long) contentVersion;
    }

    private static AppVersion minAppVersion(Map<String, Object> object, String source) throws DocumentException {
        Object value = object.get("minAppVersion");
        String text = Json.string(value);
        if (text == null) {
            throw DocumentException.in(source,
                    "\"minAppVersion\" must be a string such as \"4.8.0\", found " + Json.kindName(value));
        }
        AppVersion version = AppVersion.parse(text);
        if (version == null) {
            throw DocumentException.in(source,
                    "\"minAppVersion\" \"" + text + "\" is not a numeric version such as 4.8.0");
        }
        return version;
    }

    /** A valid locale other than the pack's own, if the field is there; or null. */
    private static String fallbackLocale(Map<String, Object> object, String locale, String source)
            throws DocumentException {
        if (!object.containsKey("fallbackLocale")) return null;
        Object value = object.get("fallbackLocale");
        String text = Json.string(value);
        if (text == null) {
            throw DocumentException.in(source, "\"fallbackLocale\" must be a string, found " + Json.kindName(value));
        }
        try {
            LocaleTags.parse(text);
        } catch (LocaleTags.InvalidTagException e) {
            throw DocumentException.in(source, "fallbackLocale: " + e.getMessage());
        }
        if (text.equals(locale)) {
            throw DocumentException.in(source, "\"fallbackLocale\" is the pack's own locale " + locale);
        }
        return text;
    }

    /** Every value a string; of several that are not, the first key in order is named. */
    private static Map<String, String> strings(Map<String, Object> object, String source) throws DocumentException {
        Object value = object.get("strings");
        Map<String, Object> values = Json.object(value);
        if (values == null) {
            throw DocumentException.in(source,
                    "\"strings\" must be an object of key to text, found " + Json.kindName(value));
        }
        Map<String, String> strings = new LinkedHashMap<>();
        String wrongType = null;
        for (Map.Entry<String, Object> entry : values.entrySet()) {
            if (entry.getValue() instanceof String) {
                strings.put(entry.getKey(), (String) entry.getValue());
            } else if (wrongType == null || Graphemes.SWIFT_ORDER.compare(entry.getKey(), wrongType) < 0) {
                wrongType = entry.getKey();
            }
        }
        if (wrongType != null) {
            throw DocumentException.in(source, "strings[\"" + wrongType + "\"] must be a string, found "
                    + describe(values.get(wrongType)));
        }
        return strings;
    }

    /** The checksum the file declares, which must be what {@code pack} hashes to. */
    private static String declaredChecksum(Object value, Pack pack, String source) throws DocumentException {
        String text = Json.string(value);
        if (text == null) {
            throw DocumentException.in(source, "\"checksum\" must be a string, found " + Json.kindName(value));
        }
        if (!isWellFormedChecksum(text)) {
            throw DocumentException.in(source,
                    "\"checksum\" must be \"sha256:\" followed by 64 lowercase hex digits, found \"" + text + "\"");
        }
        String actual = pack.checksum();
        if (!text.equals(actual)) {
            throw DocumentException.in(source, "checksum mismatch: the file declares " + text
                    + " but its content hashes to " + actual + "; the pack was changed after it was checksummed");
        }
        return text;
    }

    /**
     * A value where an integer belongs, in a message. The parser keeps no number's text, so an integer too large to
     * be exact is recognised by its value.
     */
    private static String describe(Object value) {
        if (value instanceof Double) {
            double number = (Double) value;
            String text = Json.formatNumber(number);
            boolean whole = !Double.isInfinite(number) && number == Math.rint(number);
            if (whole && Math.abs(number) > Wire.MAXIMUM_INTEGER) {
                return new BigDecimal(number).toPlainString() + ", which is too large";
            }
            return "the number " + text;
        }
        return Json.kindName(value);
    }
}
