extension Resolution {
    /// The variant a device is **in**: the one step 4 of resolution gives it (docs/experiments.md).
    /// Nil when resolution ends before that step (an app version that is not numeric, the kill
    /// switch, a withdrawn segment, a tester) or goes past it (outside the targeting or every range,
    /// a blocked variant, an app below the variant's minAppVersion). The clients count exposures and
    /// conversions for this variant whichever pack is active (intention to treat).
    public static func experimentVariant(
        _ plan: Plan, region: String, appVersion: AppVersion?, installID: String
    ) -> Plan.Experiment.Variant? {
        guard let version = appVersion, let experiment = plan.experiment, !plan.bundledOnly,
            !plan.withdrawals.contains(where: { $0.matches(region: region, version: version) }),
            tester(plan, version: version, installID: installID, note: { _ in }) == nil,
            Self.experiment(plan, region: region, version: version, installID: installID, note: { _ in }) != nil
        else { return nil }
        return experiment.assignment(region: region, appVersion: version, installID: installID)
    }
}
