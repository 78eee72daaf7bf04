package dev.rollout.client;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The wire rules shared by the index and the manifests (docs/manifest.md, "Wire rules"): members a device does not
 * know are ignored; a member it knows must have its documented type, or the whole document is refused. Every
 * published document is a JSON object whose {@code format} member names it ({@link #document}).
 */
final class Wire {
    /** Integers on the wire fit a JavaScript number exactly. */
    static final long MAXIMUM_INTEGER = 9_007_199_254_740_991L;

    private Wire() {}

    /** What a member must be. */
    static final class Kind {
        private enum Shape { STRING, BOOL, INTEGER, ARRAY, NULLABLE, OBJECT, MAP }

        private final Shape shape;
        private final long min;
        private final long max;
        private final Kind item;
        private final Map<String, Kind> members;

        private Kind(Shape shape, long min, long max, Kind item, Map<String, Kind> members) {
            this.shape = shape;
            this.min = min;
            this.max = max;
            this.item = item;
            this.members = members;
        }

        static final Kind STRING = new Kind(Shape.STRING, 0, 0, null, null);
        static final Kind BOOL = new Kind(Shape.BOOL, 0, 0, null, null);

        static Kind integer(long min) {
            return new Kind(Shape.INTEGER, min, MAXIMUM_INTEGER, null, null);
        }

        /**
         * A content or schema version. The Swift client holds them in a 64-bit Int; this one in an int, so it refuses
         * what it cannot hold. No pack above 1,000,000,000 exists (Pack.MAXIMUM_CONTENT_VERSION), so only a document
         * naming packs that cannot exist differs.
         */
        static Kind version() {
            return new Kind(Shape.INTEGER, 1, Integer.MAX_VALUE, null, null);
        }

        static Kind array(Kind item) {
            return new Kind(Shape.ARRAY, 0, 0, item, null);
        }

        static Kind nullable(Kind inner) {
            return new Kind(Shape.NULLABLE, 0, 0, inner, null);
        }

        /** An object of any member names, each of this kind. */
        static Kind map(Kind item) {
            return new Kind(Shape.MAP, 0, 0, item, null);
        }

        /** An object whose known members have these kinds (name, kind, name, kind...); others are ignored. */
        static Kind object(Object... namesAndKinds) {
            Map<String, Kind> members = new HashMap<>();
            for (int i = 0; i < namesAndKinds.length; i += 2) {
                members.put((String) namesAndKinds[i], (Kind) namesAndKinds[i + 1]);
            }
            return new Kind(Shape.OBJECT, 0, 0, null, members);
        }
    }

    private static final Kind PACK_REF = Kind.object("contentVersion", Kind.version(), "minAppVersion", Kind.STRING);
    static final Kind PLAN = Kind.object(
            "locale", Kind.STRING, "baseline", Kind.nullable(PACK_REF), "previousBaselines", Kind.array(PACK_REF),
            "rules", Kind.array(Kind.object(
                    "pack", PACK_REF, "regions", Kind.array(Kind.STRING), "appVersions", Kind.STRING,
                    "basisPoints", Kind.integer(0), "salt", Kind.STRING)),
            "blocked", Kind.array(Kind.version()),
            "withdrawn", Kind.array(Kind.object("region", Kind.STRING, "appVersions", Kind.STRING)),
            "bundledOnly", Kind.BOOL, "sequence", Kind.integer(0),
            "testers", Kind.array(Kind.object(
                    "group", Kind.STRING, "pack", PACK_REF, "salt", Kind.STRING, "members", Kind.array(Kind.STRING))),
            "experiment", Kind.object(
                    "name", Kind.STRING, "salt", Kind.STRING, "regions", Kind.array(Kind.STRING),
                    "appVersions", Kind.STRING,
                    "variants", Kind.array(Kind.object("pack", PACK_REF, "from", Kind.integer(0), "to", Kind.integer(1))),
                    "keys", Kind.array(Kind.STRING), "metrics", Kind.array(Kind.STRING)));
    static final Kind MANIFEST = Kind.object(
            "format", Kind.STRING, "locale", Kind.STRING, "sequence", Kind.integer(0), "time", Kind.STRING,
            "plan", PLAN,
            "packs", Kind.map(Kind.object(
                    "url", Kind.STRING, "bytes", Kind.integer(0), "sha256", Kind.STRING, "checksum", Kind.STRING,
                    "minAppVersion", Kind.STRING, "schemaVersion", Kind.version())),
            "bundleOnly", Kind.array(Kind.STRING));
    static final Kind INDEX = Kind.object(
            "format", Kind.STRING, "sequence", Kind.integer(0), "time", Kind.STRING, "expires", Kind.STRING,
            "defaultLocale", Kind.STRING,
            "locales", Kind.map(Kind.object(
                    "sequence", Kind.integer(0), "manifest", Kind.STRING, "chain", Kind.array(Kind.STRING),
                    "fallbackChain", Kind.array(Kind.STRING))));

    /**
     * Whether {@code value} is of {@code kind}.
     *
     * @return null, or why not: {@code path must be EXPECTED, not KIND}
     */
    static String problem(Object value, Kind kind, String path) {
        switch (kind.shape) {
            case STRING:
                return value instanceof String ? null : fail(path, "a string", value);
            case BOOL:
                return value instanceof Boolean ? null : fail(path, "a boolean", value);
            case INTEGER: {
                Long n = Json.integer(value);
                if (n != null && n >= kind.min && n <= kind.max) return null;
                String max = kind.max == MAXIMUM_INTEGER ? "2^53-1" : Long.toString(kind.max);
                return fail(path, "an integer from " + kind.min + " to " + max, value);
            }
            case ARRAY: {
                List<Object> items = Json.array(value);
                if (items == null) return fail(path, "an array", value);
                for (int i = 0; i < items.size(); i++) {
                    String problem = problem(items.get(i), kind.item, path + "[" + i + "]");
                    if (problem != null) return problem;
                }
                return null;
            }
            case NULLABLE:
                return value == Json.NULL ? null : problem(value, kind.item, path);
            case OBJECT: {
                Map<String, Object> object = Json.object(value);
                if (object == null) return fail(path, "an object", value);
                for (String name : sorted(kind.members.keySet())) {
                    Object member = object.get(name);
                    if (member == null) continue;
                    String problem = problem(member, kind.members.get(name), path + "." + name);
                    if (problem != null) return problem;
                }
                return null;
            }
            case MAP: {
                Map<String, Object> object = Json.object(value);
                if (object == null) return fail(path, "an object", value);
                for (String name : sorted(object.keySet())) {
                    String problem = problem(object.get(name), kind.item, path + "." + name);
                    if (problem != null) return problem;
                }
                return null;
            }
            default:
                throw new AssertionError(kind.shape);
        }
    }

    /**
     * The top-level object of a published document of {@code format} (an index, a manifest, a key list, a
     * {@code .sigs} file); {@code source} (its path) starts every message.
     *
     * @throws DocumentException when it is not JSON or is another format
     */
    static Map<String, Object> document(byte[] bytes, String source, String format) throws DocumentException {
        Object value;
        try {
            value = Json.parse(bytes);
        } catch (JsonException e) {
            throw DocumentException.in(source, e.getMessage());
        }
        Map<String, Object> o = Json.object(value);
        if (o == null || !format.equals(Json.string(o.get("format")))) {
            throw DocumentException.in(source, "not a " + format + " document");
        }
        return o;
    }

    /**
     * As {@link #document(byte[], String, String)}, and of {@code kind}, its members named from {@code path}.
     *
     * @throws DocumentException when it is not JSON, is another format, or breaks a wire rule
     */
    static Map<String, Object> document(byte[] bytes, String source, String format, Kind kind, String path)
            throws DocumentException {
        Map<String, Object> o = document(bytes, source, format);
        String problem = problem(o, kind, path);
        if (problem != null) throw DocumentException.in(source, problem);
        return o;
    }

    static boolean isSha256Hex(String text) {
        if (text.length() != 64) return false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
        }
        return true;
    }

    private static List<String> sorted(Iterable<String> names) {
        List<String> list = new ArrayList<>();
        for (String name : names) list.add(name);
        list.sort(Graphemes.SWIFT_ORDER);
        return list;
    }

    private static String fail(String path, String expected, Object value) {
        return path + " must be " + expected + ", not " + Json.kindName(value);
    }
}
