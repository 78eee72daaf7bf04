package dev.rollout.client;

/**
 * What a device gets from one locale's plan (docs/targeting.md, "Resolution"): a content version of the plan's
 * locale, or nothing, and then the device uses the next locale of its chain and finally its bundled strings.
 */
final class Resolution {
    private Resolution() {}

    /**
     * The content version the plan gives this device, or null for nothing from this locale. {@code appVersion} null
     * means the app reported something that is not a numeric version: such a device matches nothing and keeps its
     * bundled strings.
     */
    static Integer outcome(Plan plan, String region, AppVersion appVersion, String installId) {
        if (appVersion == null || plan.bundledOnly) return null;
        if (!plan.isWithdrawn(region, appVersion)) {
            // Testers first: a member of a group gets the candidate whatever its bucket, if it may run it.
            Integer tester = tester(plan, appVersion, installId);
            if (tester != null) return tester;
            // Then the experiment: a device in it gets its variant's pack (step 4 of docs/targeting.md).
            Plan.Experiment.Variant variant = experiment(plan, region, appVersion, installId);
            if (variant != null) return variant.pack.contentVersion;
            for (Plan.Rule rule : plan.rules) {
                if (!rule.matches(region, appVersion)) continue;
                // Only the first rule that targets the device decides; when it does not give its pack, the
                // baselines do.
                boolean eligible = !plan.isBlocked(rule.pack.contentVersion)
                        && appVersion.compareTo(rule.pack.minAppVersion) >= 0;
                if (eligible && Bucketing.bucket(installId, rule.salt) < rule.basisPoints) {
                    return rule.pack.contentVersion;
                }
                break;
            }
        }
        return baseline(plan, appVersion);
    }

    /**
     * The variant of the plan's experiment this device is in (docs/experiments.md), or null when it is not in it:
     * exactly when resolution's experiment step gives it that variant's pack. Null with no numeric app version, under
     * the kill switch, in a withdrawn segment, for a tester who gets the candidate, outside the experiment's targeting
     * or every range, and when its variant is blocked or needs a newer app.
     */
    static Plan.Experiment.Variant experimentVariant(Plan plan, String region, AppVersion appVersion, String installId) {
        if (appVersion == null || plan.bundledOnly || plan.experiment == null) return null;
        if (plan.isWithdrawn(region, appVersion) || tester(plan, appVersion, installId) != null) return null;
        return experiment(plan, region, appVersion, installId);
    }

    /** Testers first: a member of a group gets the candidate whatever its bucket, if it may run it; else null. */
    private static Integer tester(Plan plan, AppVersion appVersion, String installId) {
        for (Plan.TesterTarget tester : plan.testers) {
            if (!tester.includes(installId)) continue;
            if (!plan.isBlocked(tester.pack.contentVersion) && appVersion.compareTo(tester.pack.minAppVersion) >= 0) {
                return tester.pack.contentVersion;
            }
            return null;
        }
        return null;
    }

    /**
     * Step 4 (Swift's Resolution.experiment): the variant the experiment assigns the device, if it is not blocked and
     * the app can run it; null sends the device on to the rules.
     */
    private static Plan.Experiment.Variant experiment(Plan plan, String region, AppVersion appVersion,
            String installId) {
        Plan.Experiment experiment = plan.experiment;
        if (experiment == null || !experiment.matches(region, appVersion)) return null;
        Plan.Experiment.Variant variant = experiment.variant(installId);
        if (variant == null || plan.isBlocked(variant.pack.contentVersion)
                || appVersion.compareTo(variant.pack.minAppVersion) < 0) {
            return null;
        }
        return variant;
    }

    /** The newest baseline that is not blocked and that this app can run; null when there is none. */
    private static Integer baseline(Plan plan, AppVersion version) {
        for (Plan.PackRef ref : plan.baselines()) {
            if (!plan.isBlocked(ref.contentVersion) && version.compareTo(ref.minAppVersion) >= 0) {
                return ref.contentVersion;
            }
        }
        return null;
    }
}
