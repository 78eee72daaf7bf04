package dev.rollout.client;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one locale's devices receive (docs/targeting.md, "Plans"), as a manifest carries it: a baseline, the baselines
 * before it (last known good), staged rules, blocked content versions, withdrawn segments and the kill switch.
 * Self-contained: each pack reference carries its minAppVersion, so resolution needs nothing but the plan.
 */
final class Plan {
    /** A pack of the plan's locale and the oldest app that may run it. */
    static final class PackRef {
        final int contentVersion;
        final AppVersion minAppVersion;

        PackRef(int contentVersion, AppVersion minAppVersion) {
            this.contentVersion = contentVersion;
            this.minAppVersion = minAppVersion;
        }
    }

    /** A staged share of one pack for some regions and app versions. */
    static final class Rule {
        final PackRef pack;
        /** Sorted region codes; empty means every region. */
        final List<String> regions;
        final VersionRange versions;
        final int basisPoints;
        /** Per rollout: every rule of one candidate shares it, so its devices stay in as shares grow. */
        final String salt;

        Rule(PackRef pack, List<String> regions, VersionRange versions, int basisPoints, String salt) {
            List<String> sorted = new ArrayList<>(regions);
            sorted.sort(Graphemes.SWIFT_ORDER);
            this.pack = pack;
            this.regions = Collections.unmodifiableList(sorted);
            this.versions = versions;
            this.basisPoints = basisPoints;
            this.salt = salt;
        }

        boolean matches(String region, AppVersion version) {
            return (regions.isEmpty() || containsText(regions, region)) && versions.contains(version);
        }

        String regionsLabel() {
            return regions.isEmpty() ? "*" : String.join(",", regions);
        }
    }

    /** A segment the candidate was taken back from by a scoped revert: its devices skip the rules. */
    static final class Withdrawal {
        /** A region code, or {@code *} for every region. */
        final String region;
        final VersionRange versions;

        Withdrawal(String region, VersionRange versions) {
            this.region = region;
            this.versions = versions;
        }

        boolean matches(String device, AppVersion version) {
            return (region.equals(ANY_REGION) || SwiftStrings.same(region, device)) && versions.contains(version);
        }
    }

    /**
     * A tester group the candidate is given to whatever the device's bucket (docs/targeting.md, "Testers first"): the
     * group's salt and the hashes of its members' install ids, never an id.
     */
    static final class TesterTarget {
        final String group;
        final PackRef pack;
        final String salt;
        final Set<String> members;

        TesterTarget(String group, PackRef pack, String salt, Set<String> members) {
            this.group = group;
            this.pack = pack;
            this.salt = salt;
            this.members = Collections.unmodifiableSet(new HashSet<>(members));
        }

        /** Whether the device with this install id is one of the group: lowercase hex SHA-256(salt, 0, id). */
        boolean includes(String installId) {
            MessageDigest sha = Sha256.newDigest();
            sha.update(salt.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            sha.update(installId.getBytes(StandardCharsets.UTF_8));
            return members.contains(Sha256.hex(sha.digest()));
        }
    }

    /**
     * A running experiment (docs/experiments.md), the part of it a device needs: its devices are split between whole
     * packs, the first of which is the control, by disjoint bucket ranges of one salt. The keys whose text differs
     * between the variants are those whose first read in a session counts an exposure; {@code metrics} are the
     * conversions a device counts for it, the primary first. Swift's Plan.Experiment.
     */
    static final class Experiment {
        /** One variant: a pack of the plan's locale and the buckets {@code from..<to} whose devices get it. */
        static final class Variant {
            final PackRef pack;
            final int from;
            final int to;

            Variant(PackRef pack, int from, int to) {
                this.pack = pack;
                this.from = from;
                this.to = to;
            }

            boolean holds(int bucket) {
                return from <= bucket && bucket < to;
            }
        }

        final String name;
        final String salt;
        /** Sorted region codes; empty means every region. */
        final List<String> regions;
        final VersionRange versions;
        /** The control first, then the treatments; in bucket order their ranges follow each other from 0. */
        final List<Variant> variants;
        /** The keys whose text differs between the variants, sorted. */
        final List<String> keys;
        /** The primary metric first, then the exploratory ones. */
        final List<String> metrics;

        Experiment(String name, String salt, List<String> regions, VersionRange versions, List<Variant> variants,
                List<String> keys, List<String> metrics) {
            List<String> sortedRegions = new ArrayList<>(regions);
            sortedRegions.sort(Graphemes.SWIFT_ORDER);
            List<String> sortedKeys = new ArrayList<>(keys);
            sortedKeys.sort(Graphemes.SWIFT_ORDER);
            this.name = name;
            this.salt = salt;
            this.regions = Collections.unmodifiableList(sortedRegions);
            this.versions = versions;
            this.variants = Collections.unmodifiableList(new ArrayList<>(variants));
            this.keys = Collections.unmodifiableList(sortedKeys);
            this.metrics = Collections.unmodifiableList(new ArrayList<>(metrics));
        }

        Variant control() {
            return variants.get(0);
        }

        boolean matches(String region, AppVersion version) {
            return (regions.isEmpty() || containsText(regions, region)) && versions.contains(version);
        }

        /** The variant whose range holds this install id's bucket, whatever the device can run; or null. */
        Variant variant(String installId) {
            int bucket = Bucketing.bucket(installId, salt);
            for (Variant variant : variants) {
                if (variant.holds(bucket)) return variant;
            }
            return null;
        }

        /** Whether {@code metric} is one of this experiment's metrics. */
        boolean counts(String metric) {
            return metrics.contains(metric);
        }
    }

    /** In a withdrawn segment: every region. */
    static final String ANY_REGION = "*";

    /** Resolution order: region-specific before every-region, narrower ranges first, then by text. */
    private static final Comparator<Rule> RESOLUTION_ORDER = Comparator
            .<Rule>comparingInt(r -> r.regions.isEmpty() ? 1 : 0)
            .thenComparingInt(r -> r.versions.breadth())
            .thenComparing(Rule::regionsLabel, Graphemes.SWIFT_ORDER)
            .thenComparing(r -> r.versions.toString(), Graphemes.SWIFT_ORDER)
            .thenComparingInt(r -> r.pack.contentVersion);

    final String locale;
    /** Or null: no baseline. */
    final PackRef baseline;
    /** Earlier baselines, newest first: where a revert goes, and what a device too old for the baseline runs. */
    final List<PackRef> previousBaselines;
    /** In resolution order. */
    final List<Rule> rules;
    /** Sorted. */
    final List<Integer> blocked;
    final List<Withdrawal> withdrawals;
    /** The kill switch ({@code revert --to bundled}): every device uses the strings bundled in the app. */
    final boolean bundledOnly;
    /** Bumped by every change to the plan: the sequence of the published manifest that carries it. */
    final long sequence;
    /** Tester groups the candidate is staged to, by group name. */
    final List<TesterTarget> testers;
    /** The experiment running on this locale, or null (at most one). */
    final Experiment experiment;

    Plan(String locale, PackRef baseline, List<PackRef> previousBaselines, List<Rule> rules, List<Integer> blocked,
            List<Withdrawal> withdrawals, boolean bundledOnly, long sequence) {
        this(locale, baseline, previousBaselines, rules, blocked, withdrawals, bundledOnly, sequence,
                Collections.emptyList());
    }

    Plan(String locale, PackRef baseline, List<PackRef> previousBaselines, List<Rule> rules, List<Integer> blocked,
            List<Withdrawal> withdrawals, boolean bundledOnly, long sequence, List<TesterTarget> testers) {
        this(locale, baseline, previousBaselines, rules, blocked, withdrawals, bundledOnly, sequence, testers, null);
    }

    Plan(String locale, PackRef baseline, List<PackRef> previousBaselines, List<Rule> rules, List<Integer> blocked,
            List<Withdrawal> withdrawals, boolean bundledOnly, long sequence, List<TesterTarget> testers,
            Experiment experiment) {
        this.experiment = experiment;
        List<TesterTarget> groups = new ArrayList<>(testers);
        groups.sort(Comparator.comparing(t -> t.group, Graphemes.SWIFT_ORDER));
        this.testers = Collections.unmodifiableList(groups);
        List<Rule> ordered = new ArrayList<>(rules);
        // A stable sort, as Swift's is: rules the order cannot tell apart keep the plan's order.
        ordered.sort(RESOLUTION_ORDER);
        List<Integer> sortedBlocked = new ArrayList<>(blocked);
        Collections.sort(sortedBlocked);
        this.locale = locale;
        this.baseline = baseline;
        this.previousBaselines = Collections.unmodifiableList(new ArrayList<>(previousBaselines));
        this.rules = Collections.unmodifiableList(ordered);
        this.blocked = Collections.unmodifiableList(sortedBlocked);
        this.withdrawals = Collections.unmodifiableList(new ArrayList<>(withdrawals));
        this.bundledOnly = bundledOnly;
        this.sequence = sequence;
    }

    boolean isBlocked(int contentVersion) {
        return blocked.contains(contentVersion);
    }

    /** Baselines newest first, the current one included. */
    List<PackRef> baselines() {
        List<PackRef> all = new ArrayList<>();
        if (baseline != null) all.add(baseline);
        all.addAll(previousBaselines);
        return all;
    }

    /** Whether a scoped revert took the candidate back from this device's segment. */
    boolean isWithdrawn(String region, AppVersion version) {
        for (Withdrawal withdrawal : withdrawals) {
            if (withdrawal.matches(region, version)) return true;
        }
        return false;
    }

    /** A plan as its JSON file or a manifest's {@code plan} member writes it. */
    static Plan parse(byte[] bytes, String source) throws DocumentException {
        Object value;
        try {
            value = Json.parse(bytes);
        } catch (JsonException e) {
            throw DocumentException.notJson(source, e);
        }
        return parse(value, source);
    }

    /**
     * A plan from its JSON value. Unknown members are ignored; messages start with {@code source}. Ranges a device
     * cannot read must be dealt with first ({@link LocaleManifest#readableRanges}).
     */
    static Plan parse(Object value, String source) throws DocumentException {
        Map<String, Object> o = Json.object(value);
        String locale = o == null ? null : Json.string(o.get("locale"));
        if (locale == null) throw DocumentException.in(source, "a plan needs a locale");
        Object baselineValue = o.get("baseline");
        PackRef baseline =
                baselineValue == null || baselineValue == Json.NULL ? null : ref(baselineValue, "baseline", source);
        List<PackRef> previous = new ArrayList<>();
        for (Object item : arrayOrEmpty(o.get("previousBaselines"))) {
            previous.add(ref(item, "previousBaselines[]", source));
        }
        List<Rule> rules = new ArrayList<>();
        for (Object item : arrayOrEmpty(o.get("rules"))) rules.add(rule(item, source));
        List<Integer> blocked = new ArrayList<>();
        for (Object item : arrayOrEmpty(o.get("blocked"))) {
            Integer version = intValue(item);
            if (version == null) throw DocumentException.in(source, "blocked holds content versions");
            blocked.add(version);
        }
        List<Withdrawal> withdrawals = new ArrayList<>();
        for (Object item : arrayOrEmpty(o.get("withdrawn"))) {
            Map<String, Object> w = Json.object(item);
            String region = w == null ? null : Json.string(w.get("region"));
            String text = w == null ? null : Json.string(w.get("appVersions"));
            VersionRange range = text == null ? null : rangeOrNull(text);
            if (region == null || range == null) {
                throw DocumentException.in(source, "a withdrawn segment needs region and appVersions");
            }
            withdrawals.add(new Withdrawal(region, range));
        }
        Boolean bundledOnly = Json.bool(o.get("bundledOnly"));
        Long sequence = Json.integer(o.get("sequence"));
        Object ramp = o.get("ramp");
        if (Json.object(ramp) != null) checkRamp(Json.object(ramp), source);
        List<TesterTarget> testers = new ArrayList<>();
        for (Object item : arrayOrEmpty(o.get("testers"))) testers.add(tester(item, source));
        Object experimentValue = o.get("experiment");
        Experiment experiment = experimentValue == null || experimentValue == Json.NULL
                ? null
                : experiment(experimentValue, source);
        return new Plan(locale, baseline, previous, rules, blocked, withdrawals,
                bundledOnly != null && bundledOnly, sequence == null ? 0 : sequence, testers, experiment);
    }

    /**
     * An experiment as Swift's Plan.Experiment.parse accepts it: every member present, at least two variants whose
     * ranges, in bucket order, follow each other from bucket 0 to at most 10000, and at least one metric. Members of arrays that are not
     * strings are left out, as Swift's compactMap leaves them.
     */
    private static final String RANGES_RULE =
            "experiment variants need a pack and ranges that, in bucket order, follow each other from 0 to at most 10000";

    private static Experiment experiment(Object value, String source) throws DocumentException {
        Map<String, Object> o = Json.object(value);
        String name = o == null ? null : Json.string(o.get("name"));
        String salt = o == null ? null : Json.string(o.get("salt"));
        List<String> regions = o == null ? null : Json.strings(o.get("regions"));
        String rangeText = o == null ? null : Json.string(o.get("appVersions"));
        VersionRange range = rangeText == null ? null : rangeOrNull(rangeText);
        List<Object> variantValues = o == null ? null : Json.array(o.get("variants"));
        List<String> keys = o == null ? null : Json.strings(o.get("keys"));
        List<String> metrics = o == null ? null : Json.strings(o.get("metrics"));
        if (name == null || salt == null || regions == null || range == null || variantValues == null
                || variantValues.size() < 2 || keys == null || metrics == null || metrics.isEmpty()) {
            throw DocumentException.in(source,
                    "an experiment needs name, salt, regions, appVersions, variants, keys and metrics");
        }
        List<Experiment.Variant> variants = new ArrayList<>();
        for (Object item : variantValues) {
            Map<String, Object> v = Json.object(item);
            Map<String, Object> pack = v == null ? null : Json.object(v.get("pack"));
            Integer contentVersion = pack == null ? null : intValue(pack.get("contentVersion"));
            String minText = pack == null ? null : Json.string(pack.get("minAppVersion"));
            AppVersion minApp = minText == null ? null : AppVersion.parse(minText);
            Long from = v == null ? null : Json.integer(v.get("from"));
            Long to = v == null ? null : Json.integer(v.get("to"));
            if (contentVersion == null || minApp == null || from == null || to == null || from < 0 || from >= to
                    || to > Bucketing.BUCKETS) {
                throw DocumentException.in(source, RANGES_RULE);
            }
            variants.add(new Experiment.Variant(new PackRef(contentVersion, minApp), (int) (long) from,
                    (int) (long) to));
        }
        // In bucket order the ranges follow each other from 0: no bucket in two, none skipped.
        List<Experiment.Variant> byBucket = new ArrayList<>(variants);
        byBucket.sort((a, b) -> Integer.compare(a.from, b.from));
        int end = 0;
        for (Experiment.Variant variant : byBucket) {
            if (variant.from != end) throw DocumentException.in(source, RANGES_RULE);
            end = variant.to;
        }
        return new Experiment(name, salt, regions, range, variants, keys, metrics);
    }

    private static TesterTarget tester(Object item, String source) throws DocumentException {
        Map<String, Object> t = Json.object(item);
        String group = t == null ? null : Json.string(t.get("group"));
        String salt = t == null ? null : Json.string(t.get("salt"));
        List<Object> memberValues = t == null ? null : Json.array(t.get("members"));
        if (group == null || salt == null || memberValues == null || t.get("pack") == null) {
            throw DocumentException.in(source, "a testers entry needs group, pack, salt and members");
        }
        Set<String> members = new HashSet<>();
        for (Object member : memberValues) {
            if (member instanceof String) members.add((String) member);
        }
        return new TesterTarget(group, ref(t.get("pack"), "testers pack", source), salt, members);
    }

    private static Rule rule(Object item, String source) throws DocumentException {
        Map<String, Object> r = Json.object(item);
        Long basisPoints = r == null ? null : Json.integer(r.get("basisPoints"));
        String salt = r == null ? null : Json.string(r.get("salt"));
        String rangeText = r == null ? null : Json.string(r.get("appVersions"));
        List<Object> regionValues = r == null ? null : Json.array(r.get("regions"));
        if (basisPoints == null || basisPoints < 0 || basisPoints > Bucketing.BUCKETS || salt == null
                || rangeText == null || regionValues == null) {
            throw DocumentException.in(source, "a rule needs pack, regions, appVersions, basisPoints and salt");
        }
        List<String> regions = new ArrayList<>();
        for (Object region : regionValues) {
            if (region instanceof String) regions.add((String) region);
        }
        VersionRange range = rangeOrNull(rangeText);
        if (range == null) throw DocumentException.in(source, "rule appVersions \"" + rangeText + "\" is not a range");
        return new Rule(ref(r.get("pack"), "rule pack", source), regions, range, (int) (long) basisPoints, salt);
    }

    private static PackRef ref(Object value, String what, String source) throws DocumentException {
        Map<String, Object> r = Json.object(value);
        Integer contentVersion = r == null ? null : intValue(r.get("contentVersion"));
        String text = r == null ? null : Json.string(r.get("minAppVersion"));
        AppVersion minApp = text == null ? null : AppVersion.parse(text);
        if (contentVersion == null || minApp == null) {
            throw DocumentException.in(source, what + " must be {contentVersion, minAppVersion}");
        }
        return new PackRef(contentVersion, minApp);
    }

    /**
     * A ramp is the control plane's schedule, which a device never follows; it is checked as the Swift client checks
     * it, so that both clients refuse the same manifests.
     */
    private static void checkRamp(Map<String, Object> r, String source) throws DocumentException {
        List<Object> steps = Json.array(r.get("steps"));
        int integerSteps = 0;
        boolean inRange = true;
        if (steps != null) {
            for (Object step : steps) {
                Long n = Json.integer(step);
                if (n == null) continue;
                integerSteps++;
                if (n < 0 || n > Bucketing.BUCKETS) inRange = false;
            }
        }
        Long step = Json.integer(r.get("step"));
        String since = Json.string(r.get("since"));
        boolean ok = integerSteps > 0 && inRange && Json.integer(r.get("every")) != null && step != null
                && step >= 0 && step < integerSteps && since != null && Timestamp.parse(since) != null;
        if (!ok) throw DocumentException.in(source, "a ramp needs steps, every, step, since and paused");
    }

    /** An integer that fits a content version, or null. */
    private static Integer intValue(Object value) {
        Long n = Json.integer(value);
        return n == null || n < Integer.MIN_VALUE || n > Integer.MAX_VALUE ? null : (int) (long) n;
    }

    private static VersionRange rangeOrNull(String text) {
        try {
            return VersionRange.parse(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static List<Object> arrayOrEmpty(Object value) {
        List<Object> items = Json.array(value);
        return items == null ? Collections.emptyList() : items;
    }

    private static boolean containsText(List<String> list, String text) {
        for (String item : list) {
            if (SwiftStrings.same(item, text)) return true;
        }
        return false;
    }
}
