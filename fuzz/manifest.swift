// libFuzzer target: what a device and `rollout verify-site` read from a published site: a locale
// manifest (LocaleManifest.parse), the site index (SiteIndex.parse) and the plan inside a manifest
// (Plan.parse), and then resolution over the parsed plan. Build and run with fuzz/run.sh;
// docs/reliability.md, "Fuzzing".
//
// Every input goes to all three parsers. Invariants:
//   errors      the parsers throw only RolloutError.badInput.
//   manifest    the published bytes of a parsed manifest (RFC 8785) parse back to the same manifest
//               (without the plan's lastChange, which a manifest does not carry) and are a fixed point.
//   index       the same for the site index.
//   plan        the canonical JSON of a parsed plan parses back to the same plan and is a fixed point.
//   resolution  for devices in the regions and at the version bounds the plan names: resolve() and
//               outcome() agree; a device with no numeric version, or any device under the kill
//               switch, gets bundled strings; a pack outcome is a baseline or rule pack of the plan
//               and is not blocked. SegmentShares pieces add up to 10,000 basis points; the plan and
//               its `targeting` (no lastChange, no sequence) resolve identically; unreachableRule()
//               does not trap.
import RolloutModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    if let manifest = parse("LocaleManifest", { try LocaleManifest.parse(bytes, source: "manifests/fuzz.json") }) {
        checkManifest(manifest)
    }
    if let index = parse("SiteIndex", { try SiteIndex.parse(bytes, source: "index.json") }) {
        checkIndex(index)
    }
    if let plan = parse("Plan", { try Plan.parse(bytes, source: "plan.json") }) {
        checkPlan(plan)
    }
    return 0
}

private func parse<T>(_ what: String, _ body: () throws -> T) -> T? {
    do {
        return try body()
    } catch let error as RolloutError {
        guard case .badInput = error else {
            require(false, "\(what).parse threw \(error), not badInput")
            return nil
        }
        return nil
    } catch {
        require(false, "\(what).parse threw a \(type(of: error)): \(error)")
        return nil
    }
}

private func checkManifest(_ manifest: LocaleManifest) {
    var plan = manifest.plan
    plan.lastChange = nil
    let expected = LocaleManifest(
        locale: manifest.locale, sequence: manifest.sequence, time: manifest.time, plan: plan, packs: manifest.packs)
    let published = manifest.bytes
    do {
        let again = try LocaleManifest.parse(published, source: "published")
        require(again == expected, "the published bytes \(show(published)) parse to a different manifest")
        require(again.bytes == published, "the published bytes \(show(published)) are not a fixed point")
    } catch {
        require(false, "the published bytes \(show(published)) do not parse: \(error)")
    }
    checkResolution(manifest.plan)
}

private func checkIndex(_ index: SiteIndex) {
    let published = index.bytes
    do {
        let again = try SiteIndex.parse(published, source: "published")
        require(again == index, "the published index \(show(published)) parses to a different index")
        require(again.bytes == published, "the published index \(show(published)) is not a fixed point")
    } catch {
        require(false, "the published index \(show(published)) does not parse: \(error)")
    }
}

private func checkPlan(_ plan: Plan) {
    let written = JSONWriter.canonical(plan.jsonValue)
    do {
        let again = try Plan.parse(written, source: "written")
        require(again == plan, "the plan's JSON \(show(written)) parses to a different plan")
        require(
            JSONWriter.canonical(again.jsonValue) == written, "the plan's JSON \(show(written)) is not a fixed point")
    } catch {
        require(false, "the plan's JSON \(show(written)) does not parse: \(error)")
    }
    checkResolution(plan)
}

private func checkResolution(_ plan: Plan) {
    var regions = ["TR", "US"]
    for rule in plan.rules.prefix(4) { regions += rule.regions.prefix(2) }
    for withdrawal in plan.withdrawals.prefix(2) where withdrawal.region != Region.any {
        regions.append(withdrawal.region)
    }
    var versions: [AppVersion?] = [nil, AppVersion(components: [0]), AppVersion(components: [4, 8, 1])]
    for rule in plan.rules.prefix(4) {
        versions += [rule.versions.lower?.version, rule.versions.upper?.version, rule.pack.minAppVersion]
    }
    for ref in plan.baselines.prefix(3) { versions.append(ref.minAppVersion) }
    let packs = Set(plan.baselines.map(\.contentVersion) + plan.rules.map(\.pack.contentVersion))

    for region in regions {
        for version in versions {
            for installID in ["install-1", "install-2"] {
                let resolution = Resolution.resolve(plan, region: region, appVersion: version, installID: installID)
                let outcome = Resolution.outcome(plan, region: region, appVersion: version, installID: installID)
                let device = "\(region) \(version?.description ?? "nil") \(installID)"
                require(resolution.outcome == outcome, "resolve and outcome disagree for \(device)")
                require(!resolution.trace.isEmpty, "no trace for \(device)")
                if version == nil || plan.bundledOnly {
                    require(outcome == .bundled, "\(device) gets \(outcome), not bundled")
                }
                if case .pack(let v) = outcome {
                    require(packs.contains(v), "\(device) gets \(v), which the plan does not name")
                    require(!plan.isBlocked(v), "\(device) gets blocked \(v)")
                }
                let targeting = Resolution.outcome(
                    plan.targeting, region: region, appVersion: version, installID: installID)
                require(targeting == outcome, "the plan and its targeting resolve differently for \(device)")
            }
        }
    }
    for piece in SegmentShares.of(plan, region: Region.any, versions: .all).pieces {
        let total = piece.shares.reduce(0) { $0 + $1.basisPoints }
        require(total == 10_000, "piece \(piece.regions) \(piece.versions) adds up to \(total) basis points")
        _ = piece.describe(locale: plan.locale)
    }
    require(
        SegmentShares.changes(from: plan, to: plan.targeting).isEmpty,
        "the plan and its targeting have different shares")
    _ = plan.unreachableRule()
}
