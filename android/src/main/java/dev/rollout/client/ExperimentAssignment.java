package dev.rollout.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The variant of an experiment the device is in (docs/experiments.md), from the plan of its own locale's newest
 * verified manifest: what it counts exposures and conversions for, whichever pack is active (intention to treat).
 * The Swift client's ExperimentAssignment, in state.json as its {@code experiment} member.
 */
final class ExperimentAssignment {
    /** What a session's memory belongs to: another experiment, or another variant of it, starts that memory afresh. */
    static final class Tag {
        final String name;
        final String salt;
        final PackId pack;

        Tag(String name, String salt, PackId pack) {
            this.name = name;
            this.salt = salt;
            this.pack = pack;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Tag)) return false;
            Tag t = (Tag) o;
            return t.name.equals(name) && t.salt.equals(salt) && t.pack.equals(pack);
        }

        @Override
        public int hashCode() {
            return Objects.hash(name, salt, pack);
        }
    }

    final String locale;
    final Tag tag;
    final boolean isControl;
    /** The varied keys: string() looks a key up here, one hash, before anything else. */
    final Set<String> keys;
    /** The primary metric first. */
    final List<String> metrics;

    ExperimentAssignment(String locale, Tag tag, boolean isControl, Set<String> keys, List<String> metrics) {
        this.locale = locale;
        this.tag = tag;
        this.isControl = isControl;
        this.keys = Collections.unmodifiableSet(new HashSet<>(keys));
        this.metrics = Collections.unmodifiableList(new ArrayList<>(metrics));
    }

    /**
     * The variant {@code plan} puts this device in (Resolution.experimentVariant), or null when it is in none.
     */
    static ExperimentAssignment of(Plan plan, String region, AppVersion appVersion, String installId) {
        Plan.Experiment.Variant variant = Resolution.experimentVariant(plan, region, appVersion, installId);
        if (variant == null) return null;
        Plan.Experiment experiment = plan.experiment;
        return new ExperimentAssignment(plan.locale,
                new Tag(experiment.name, experiment.salt, new PackId(plan.locale, variant.pack.contentVersion)),
                variant == experiment.control(), new HashSet<>(experiment.keys), experiment.metrics);
    }

    /** The keys, sorted as Swift sorts them. */
    List<String> sortedKeys() {
        List<String> sorted = new ArrayList<>(keys);
        sorted.sort(Graphemes.SWIFT_ORDER);
        return sorted;
    }

    Map<String, Object> json() {
        Map<String, Object> o = new TreeMap<>();
        o.put("locale", locale);
        o.put("name", tag.name);
        o.put("salt", tag.salt);
        o.put("pack", tag.pack.toString());
        o.put("control", isControl);
        o.put("keys", new ArrayList<Object>(sortedKeys()));
        o.put("metrics", new ArrayList<Object>(metrics));
        return o;
    }

    /** Null when a member is missing: the device is then in no experiment until its next refresh. */
    static ExperimentAssignment fromJson(Object json) {
        Map<String, Object> o = Json.object(json);
        if (o == null) return null;
        String locale = Json.string(o.get("locale"));
        String name = Json.string(o.get("name"));
        String salt = Json.string(o.get("salt"));
        String packText = Json.string(o.get("pack"));
        PackId pack = packText == null ? null : PackIds.parse(packText);
        Boolean isControl = Json.bool(o.get("control"));
        List<Object> keys = Json.array(o.get("keys"));
        List<Object> metrics = Json.array(o.get("metrics"));
        if (locale == null || name == null || salt == null || pack == null || isControl == null || keys == null
                || metrics == null) {
            return null;
        }
        return new ExperimentAssignment(locale, new Tag(name, salt, pack), isControl,
                new HashSet<>(LaunchGuard.stringList(keys)), LaunchGuard.stringList(metrics));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ExperimentAssignment && json().equals(((ExperimentAssignment) other).json());
    }

    @Override
    public int hashCode() {
        return tag.hashCode();
    }
}
