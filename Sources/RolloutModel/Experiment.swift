import RolloutCrypto

extension Plan {
    /// A running experiment (docs/experiments.md): the part of it a device needs, published in the
    /// plan. Its devices are split between whole packs, the first of which is the control, by
    /// disjoint bucket ranges of one fresh salt; the keys whose text differs between the variants
    /// are the ones whose first read in a session counts an exposure, and `metrics` are the
    /// conversions a device counts for it, the primary first.
    public struct Experiment: Equatable, Sendable {
        public struct Variant: Equatable, Sendable {
            public var pack: PackRef
            /// The buckets (0 to 9999) whose devices get this variant: `from..<to`.
            public var from: Int
            public var to: Int

            public init(pack: PackRef, from: Int, to: Int) {
                self.pack = pack
                self.from = from
                self.to = to
            }

            public var share: Percent { Percent(basisPoints: to - from) }
        }

        public var name: String
        public var salt: String
        /// Sorted region codes; empty means every region.
        public var regions: [String]
        public var versions: VersionRange
        /// The control first, then the treatments, in the order `experiment start` named them. In
        /// bucket order their ranges follow each other from bucket 0; `experiment start` lays the
        /// treatments first and the control last (`ranges(_:)`).
        public var variants: [Variant]
        /// The keys whose text differs between the variants, sorted.
        public var keys: [String]
        /// The primary metric first, then the exploratory ones.
        public var metrics: [String]

        public init(
            name: String, salt: String, regions: [String], versions: VersionRange, variants: [Variant],
            keys: [String], metrics: [String]
        ) {
            self.name = name
            self.salt = salt
            self.regions = regions.sorted()
            self.versions = versions
            self.variants = variants
            self.keys = keys.sorted()
            self.metrics = metrics
        }

        public var control: Variant { variants[0] }

        public func matches(region: String, version: AppVersion) -> Bool {
            (regions.isEmpty || regions.contains(region)) && versions.contains(version)
        }

        /// The variant a device is assigned to, whatever it can run; nil outside the targeting or
        /// outside every range (a split that adds up to less than 100%).
        public func assignment(region: String, appVersion: AppVersion?, installID: String) -> Variant? {
            guard let appVersion, matches(region: region, version: appVersion) else { return nil }
            return variant(holding: Bucketing.bucket(installID: installID, salt: salt))
        }

        /// The variant whose range holds `bucket`; nil outside every range.
        public func variant(holding bucket: Int) -> Variant? { variants.first { $0.from <= bucket && bucket < $0.to } }

        /// "TR on >=4.8", "every region on every app version".
        public var target: String { Plan.target(regions: regions, versions: versions) }

        /// The ranges of `shares` (the control's first), laid out from bucket 0 with the treatments
        /// first, in order, and the control last: the first treatment's devices are the buckets below
        /// its share, as a rule's are, so shipping it with the experiment's salt keeps exactly them.
        public static func ranges(_ shares: [Percent]) -> [Range<Int>] {
            var ranges = Array(repeating: 0..<0, count: shares.count)
            var start = 0
            for index in Array(shares.indices.dropFirst()) + [0] {
                ranges[index] = start..<(start + shares[index].basisPoints)
                start += shares[index].basisPoints
            }
            return ranges
        }

        /// An experiment's salt: reproducible from its name, locale and the commit it starts on, and
        /// different from every rollout's and tester group's salt (another prefix).
        public static func salt(name: String, locale: String, parent: String) -> String {
            String(SHA256.hex(Array("rollout-experiment\u{0}\(name)\u{0}\(locale)\u{0}\(parent)".utf8)).prefix(16))
        }

        /// An experiment name: 1 to 40 lowercase ASCII letters, digits and `-`, starting with a
        /// letter, so it is a file name as it is.
        public static func isValidName(_ name: String) -> Bool {
            let bytes = Array(name.utf8)
            guard let first = bytes.first, (97...122).contains(first), bytes.count <= 40 else { return false }
            return bytes.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 }
        }

        /// A metric name, as a device records it and an outcome CSV names it: 1 to 40 lowercase
        /// ASCII letters, digits and `_`, starting with a letter.
        public static func isValidMetric(_ name: String) -> Bool {
            let bytes = Array(name.utf8)
            guard let first = bytes.first, (97...122).contains(first), bytes.count <= 40 else { return false }
            return bytes.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 }
        }

        var jsonValue: JSONValue {
            [
                "name": .string(name), "salt": .string(salt), "regions": .array(regions.map { .string($0) }),
                "appVersions": .string(versions.description),
                "variants": .array(
                    variants.map { variant in
                        [
                            "pack": [
                                "contentVersion": .integer(variant.pack.contentVersion),
                                "minAppVersion": .string(variant.pack.minAppVersion.description),
                            ],
                            "from": .integer(variant.from), "to": .integer(variant.to),
                        ]
                    }),
                "keys": .array(keys.map { .string($0) }), "metrics": .array(metrics.map { .string($0) }),
            ]
        }

        static let rangesRule =
            "experiment variants need a pack and ranges that, in bucket order, follow each other from 0 to at most 10000"

        static func parse(_ value: JSONValue, source: String) throws -> Experiment {
            func fail() -> RolloutError {
                .badInput("\(source): an experiment needs name, salt, regions, appVersions, variants, keys and metrics")
            }
            guard let o = value.objectValue, let name = o["name"]?.stringValue, let salt = o["salt"]?.stringValue,
                let regions = o["regions"]?.arrayValue?.compactMap(\.stringValue),
                let rangeText = o["appVersions"]?.stringValue, let range = try? VersionRange.parse(rangeText),
                let variantValues = o["variants"]?.arrayValue, variantValues.count >= 2,
                let keys = o["keys"]?.arrayValue?.compactMap(\.stringValue),
                let metrics = o["metrics"]?.arrayValue?.compactMap(\.stringValue), !metrics.isEmpty
            else { throw fail() }
            let variants = try variantValues.map { item -> Variant in
                guard let v = item.objectValue, let pack = v["pack"]?.objectValue,
                    let cv = pack["contentVersion"]?.integerValue, let minText = pack["minAppVersion"]?.stringValue,
                    let minApp = AppVersion(minText), let from = v["from"]?.integerValue,
                    let to = v["to"]?.integerValue, from >= 0, from < to, to <= Bucketing.buckets
                else { throw RolloutError.badInput("\(source): \(rangesRule)") }
                return Variant(pack: PackRef(contentVersion: cv, minAppVersion: minApp), from: from, to: to)
            }
            // In bucket order the ranges follow each other from 0: no bucket in two, none skipped.
            var end = 0
            for variant in variants.sorted(by: { $0.from < $1.from }) {
                guard variant.from == end else { throw RolloutError.badInput("\(source): \(rangesRule)") }
                end = variant.to
            }
            return Experiment(
                name: name, salt: salt, regions: regions, versions: range, variants: variants, keys: keys,
                metrics: metrics)
        }
    }
}

extension Resolution {
    /// Step 4 of docs/targeting.md, "Resolution": the variant an experiment assigns the device, if it
    /// is not blocked and the app can run it; nil sends the device on to the rules.
    static func experiment(
        _ plan: Plan, region: String, version: AppVersion, installID: String, note: (() -> String) -> Void
    ) -> Plan.Experiment.Variant? {
        guard let experiment = plan.experiment else { return nil }
        guard experiment.matches(region: region, version: version) else {
            note { "experiment \(experiment.name) targets \(experiment.target), not this device" }
            return nil
        }
        let bucket = Bucketing.bucket(installID: installID, salt: experiment.salt)
        guard let variant = experiment.variant(holding: bucket) else {
            note { "experiment \(experiment.name): bucket \(bucket) is in no variant" }
            return nil
        }
        let id = "\(plan.locale)@\(variant.pack.contentVersion)"
        let role = variant == experiment.control ? "control" : "variant"
        if plan.isBlocked(variant.pack.contentVersion) {
            note { "experiment \(experiment.name): bucket \(bucket) is \(role) \(id), which is blocked" }
            return nil
        }
        if version < variant.pack.minAppVersion {
            note {
                "experiment \(experiment.name): bucket \(bucket) is \(role) \(id), which needs app \(variant.pack.minAppVersion)"
            }
            return nil
        }
        note { "experiment \(experiment.name): bucket \(bucket) in \(variant.from)..<\(variant.to), \(role) \(id)" }
        return variant
    }
}
