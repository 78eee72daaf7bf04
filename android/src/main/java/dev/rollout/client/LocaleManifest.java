package dev.rollout.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One locale's published manifest, {@code manifests/<locale>.json} (docs/manifest.md): its plan, in the form
 * {@link Resolution} reads, and where each pack is.
 */
final class LocaleManifest {
    static final String FORMAT = "rollout-manifest/1";

    /** Where one pack is and what its bytes must be. */
    static final class PackEntry {
        /** {@code packs/<locale>/<version>.<first 16 hex of sha256>.json}, relative to the site (checked). */
        final String url;
        final long bytes;
        /** Lowercase hex SHA-256 of the file's bytes, for the transport. */
        final String sha256;
        /** The pack's own {@code sha256:} checksum (RFC 8785), for the content. */
        final String checksum;
        final String minAppVersion;
        final int schemaVersion;

        PackEntry(String url, long bytes, String sha256, String checksum, String minAppVersion, int schemaVersion) {
            this.url = url;
            this.bytes = bytes;
            this.sha256 = sha256;
            this.checksum = checksum;
            this.minAppVersion = minAppVersion;
            this.schemaVersion = schemaVersion;
        }
    }

    /**
     * A plan's JSON value as a device reads it, and the app-version ranges it could not read (a newer publisher's
     * syntax): they never give a device the staged pack.
     */
    static final class Readable {
        final Object plan;
        final List<String> unreadableRanges;

        private Readable(Object plan, List<String> unreadableRanges) {
            this.plan = plan;
            this.unreadableRanges = Collections.unmodifiableList(unreadableRanges);
        }
    }

    final String locale;
    final long sequence;
    /** Seconds since the epoch. */
    final long time;
    final Plan plan;
    /** By content version. */
    final Map<Integer, PackEntry> packs;
    /** The policy's bundle-only key patterns: a device never shows a key they match from a pack (docs/policy.md). */
    final KeyPatterns bundleOnly;

    private LocaleManifest(String locale, long sequence, long time, Plan plan, Map<Integer, PackEntry> packs,
            KeyPatterns bundleOnly) {
        this.locale = locale;
        this.sequence = sequence;
        this.time = time;
        this.plan = plan;
        this.packs = Collections.unmodifiableMap(packs);
        this.bundleOnly = bundleOnly;
    }

    /**
     * The plan as this device reads it: a rule whose range it cannot parse is left out (it matches no device, so
     * resolution is the same), and a withdrawn segment whose range it cannot parse covers every version ({@code *}).
     * Fail safe: a range the device cannot read never gives it the staged pack, and never takes away a block, a kill
     * switch or a baseline. {@code plan} is not changed.
     */
    static Readable readableRanges(Object plan) {
        Map<String, Object> o = Json.object(plan);
        List<String> unreadable = new ArrayList<>();
        if (o == null) return new Readable(plan, unreadable);
        Map<String, Object> copy = new LinkedHashMap<>(o);
        List<Object> rules = Json.array(o.get("rules"));
        if (rules != null) {
            List<Object> kept = new ArrayList<>();
            for (Object rule : rules) {
                if (readable(rule, unreadable)) kept.add(rule);
            }
            copy.put("rules", kept);
        }
        List<Object> withdrawn = Json.array(o.get("withdrawn"));
        if (withdrawn != null) {
            List<Object> widened = new ArrayList<>();
            for (Object item : withdrawn) {
                Map<String, Object> w = Json.object(item);
                if (readable(item, unreadable) || w == null) {
                    widened.add(item);
                } else {
                    Map<String, Object> every = new LinkedHashMap<>(w);
                    every.put("appVersions", "*");
                    widened.add(every);
                }
            }
            copy.put("withdrawn", widened);
        }
        return new Readable(copy, unreadable);
    }

    /** False, and the range noted, when {@code item}'s appVersions is a string that is not a range. */
    private static boolean readable(Object item, List<String> unreadable) {
        Map<String, Object> o = Json.object(item);
        String text = o == null ? null : Json.string(o.get("appVersions"));
        if (text == null) return true;
        try {
            VersionRange.parse(text);
            return true;
        } catch (IllegalArgumentException e) {
            unreadable.add(text);
            return false;
        }
    }

    /**
     * A manifest as published; {@code source} (its path, {@code manifests/tr-TR.json}) starts every message.
     *
     * @throws DocumentException when it is not JSON, another format, or breaks a wire rule
     */
    static LocaleManifest parse(byte[] bytes, String source) throws DocumentException {
        Map<String, Object> o = Wire.document(bytes, source, FORMAT, Wire.MANIFEST, "manifest");
        String locale = Json.string(o.get("locale"));
        Long sequence = Json.integer(o.get("sequence"));
        String timeText = Json.string(o.get("time"));
        Long time = timeText == null ? null : Timestamp.parse(timeText);
        Object planValue = o.get("plan");
        Map<String, Object> packValues = Json.object(o.get("packs"));
        if (locale == null || sequence == null || time == null || planValue == null || packValues == null) {
            throw DocumentException.in(source, "a manifest needs locale, sequence, time, plan and packs");
        }
        Readable readable = readableRanges(planValue);
        Plan plan = Plan.parse(readable.plan, source + ": plan");
        if (!SwiftStrings.same(plan.locale, locale)) {
            throw DocumentException.in(source, "the plan is for " + plan.locale + ", the manifest for " + locale);
        }
        Map<Integer, PackEntry> packs = new LinkedHashMap<>();
        for (Map.Entry<String, Object> member : packValues.entrySet()) {
            int version = versionName(member.getKey(), source);
            packs.put(version, entry(member.getKey(), version, member.getValue(), locale, source));
        }
        KeyPatterns bundleOnly = KeyPatterns.NONE;
        Object bundleOnlyValue = o.get("bundleOnly");
        if (bundleOnlyValue != null) {
            List<Object> items = Json.array(bundleOnlyValue);
            List<String> spellings = new ArrayList<>();
            for (Object item : items) {
                if (item instanceof String) spellings.add((String) item);
            }
            bundleOnly = spellings.size() == items.size() ? KeyPatterns.parse(spellings) : null;
            if (bundleOnly == null) throw DocumentException.in(source, "bundleOnly must be an array of key patterns");
        }
        return new LocaleManifest(locale, sequence, time, plan, packs, bundleOnly);
    }

    /** A pack entry's name: its content version in plain decimal ({@code "17"}, never {@code "017"}). */
    private static int versionName(String key, String source) throws DocumentException {
        boolean plain = !key.isEmpty() && key.length() <= 10 && key.charAt(0) != '0';
        for (int i = 0; i < key.length(); i++) {
            if (key.charAt(i) < '0' || key.charAt(i) > '9') plain = false;
        }
        long version = plain ? Long.parseLong(key) : 0;
        if (version < 1 || version > Integer.MAX_VALUE) throw entryIncomplete(source, key);
        return (int) version;
    }

    private static PackEntry entry(String key, int version, Object value, String locale, String source)
            throws DocumentException {
        Map<String, Object> p = Json.object(value);
        if (p == null) throw entryIncomplete(source, key);
        String url = Json.string(p.get("url"));
        Long size = Json.integer(p.get("bytes"));
        String sha = Json.string(p.get("sha256"));
        String checksum = Json.string(p.get("checksum"));
        String minApp = Json.string(p.get("minAppVersion"));
        Long schema = Json.integer(p.get("schemaVersion"));
        if (url == null || size == null || sha == null || checksum == null || minApp == null || schema == null) {
            throw entryIncomplete(source, key);
        }
        PackId id = new PackId(locale, version);
        if (!SiteLayout.isSafePackUrl(url, id, sha)) {
            throw DocumentException.in(source, "pack entry \"" + key + "\" has the url " + url
                    + "; a device only fetches " + SiteLayout.pack(id, sha));
        }
        if (!checksum.startsWith("sha256:") || !Wire.isSha256Hex(checksum.substring(7))
                || AppVersion.parse(minApp) == null) {
            throw DocumentException.in(source, "pack entry \"" + key
                    + "\" needs a sha256: checksum and a numeric minAppVersion");
        }
        // The wire rules held schemaVersion to an int.
        return new PackEntry(url, size, sha, checksum, minApp, (int) (long) schema);
    }

    private static DocumentException entryIncomplete(String source, String key) {
        return DocumentException.in(source, "pack entry \"" + key + "\" needs a content version as its name, and url, "
                + "bytes, sha256, checksum, minAppVersion and schemaVersion");
    }
}
