/// Synthetic devices resolved through a plan: the exposure a promote will have, before it happens.
public enum Simulation {
    public struct Segment: Equatable, Sendable {
        public let region: String
        public let appVersion: AppVersion
        public let weight: Double

        public init(region: String, appVersion: AppVersion, weight: Double) {
            self.region = region
            self.appVersion = appVersion
            self.weight = weight
        }

        public var label: String { "\(region)/\(appVersion)" }
    }

    public struct Result: Equatable, Sendable {
        public let segment: Segment
        public let devices: Int
        /// Devices per outcome.
        public let counts: [Resolution.Outcome: Int]
        /// What the plan says the shares should be, in basis points.
        public let expected: [Resolution.Outcome: Int]
    }

    /// The segments a plan names, for when no mix is given: every region its rules name plus one
    /// region they do not (`otherRegion`), at every version where the plan's behaviour can change.
    public static func defaultMix(for plan: Plan, otherRegion: String) -> [Segment] {
        let regions = Set(plan.rules.flatMap(\.regions)).sorted() + [otherRegion]
        var versions = SegmentShares.samplePoints(plan, within: .all).filter { $0 != AppVersion(components: [0]) }.map(
            readable)
        if let lowest = versions.first, let below = predecessor(lowest) { versions.insert(below, at: 0) }
        if versions.isEmpty { versions = [AppVersion(components: [1, 0])] }
        return regions.flatMap { region in versions.map { Segment(region: region, appVersion: $0, weight: 1) } }
    }

    /// The point just after 4.8.1 (4.8.1.0.0.0.0.1) as a device would report one: 4.8.2.
    static func readable(_ version: AppVersion) -> AppVersion {
        let label = SegmentShares.startLabel(version)
        guard label.hasPrefix(">"), !label.hasPrefix(">="), let base = AppVersion(String(label.dropFirst())) else {
            return version
        }
        var components = base.components
        components[components.count - 1] += 1
        return AppVersion(components: components)
    }

    /// A version just below `version`, or nil at 0: 4.8 gives 4.7, 4.0 gives 3.
    static func predecessor(_ version: AppVersion) -> AppVersion? {
        var components = version.components
        while let last = components.last, last == 0, components.count > 1 { components.removeLast() }
        guard components.last! > 0 else { return nil }
        components[components.count - 1] -= 1
        return AppVersion(components: components)
    }

    /// Spreads `devices` over `mix` by weight (largest remainders, so they add up exactly), draws a
    /// random install id for each from `seed`, and resolves it.
    public static func run(_ plan: Plan, mix: [Segment], devices: Int, seed: UInt64) -> [Result] {
        let total = mix.reduce(0) { $0 + $1.weight }
        guard total > 0 else { return [] }
        let exact = mix.map { Double(devices) * $0.weight / total }
        var counts = exact.map { Int($0) }
        let order = exact.indices.sorted { (exact[$0] - Double(counts[$0])) > (exact[$1] - Double(counts[$1])) }
        for index in order.prefix(devices - counts.reduce(0, +)) { counts[index] += 1 }

        var generator = InstallIDGenerator(seed: seed)
        return zip(mix, counts).map { segment, count in
            var tally: [Resolution.Outcome: Int] = [:]
            for _ in 0..<count {
                let outcome = Resolution.outcome(
                    plan, region: segment.region, appVersion: segment.appVersion, installID: generator.next())
                tally[outcome, default: 0] += 1
            }
            let expected = SegmentShares.sharesAt(plan, regionCode: segment.region, version: segment.appVersion)
            return Result(
                segment: segment, devices: count, counts: tally,
                expected: Dictionary(uniqueKeysWithValues: expected.map { ($0.outcome, $0.basisPoints) }))
        }
    }
}

/// Random install ids in the shape devices use (uppercase UUIDs), reproducible from a seed.
public struct InstallIDGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    private mutating func nextWord() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func next() -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        for word in [nextWord(), nextWord()] {
            for shift in stride(from: 60, through: 0, by: -4) { bytes.append(hex[Int((word >> UInt64(shift)) & 0xF)]) }
        }
        for position in [8, 13, 18, 23] { bytes.insert(UInt8(ascii: "-"), at: position) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
