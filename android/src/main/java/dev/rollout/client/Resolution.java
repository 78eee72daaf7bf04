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
            for (Plan.TesterTarget tester : plan.testers) {
                if (!tester.includes(installId)) continue;
                if (!plan.isBlocked(tester.pack.contentVersion)
                        && appVersion.compareTo(tester.pack.minAppVersion) >= 0) {
                    return tester.pack.contentVersion;
                }
                break;
            }
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
