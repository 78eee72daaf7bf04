/// A set of app versions, from the command line: `>=4.8`, `>=4.8 <5`, `4.8.x`, `=4.8.1`, `<5`, `*`.
/// Bounds compare numerically (AppVersion); anything else is refused with the text quoted.
public struct VersionRange: Equatable, Hashable, Sendable, CustomStringConvertible {
    public struct Bound: Equatable, Hashable, Sendable {
        public let version: AppVersion
        public let inclusive: Bool
    }

    public let lower: Bound?
    public let upper: Bound?
    /// The text as the user wrote it (normalised spacing), kept for display and storage.
    public let description: String

    public static let all = VersionRange(lower: nil, upper: nil, description: "*")

    public init(lower: Bound?, upper: Bound?, description: String) {
        self.lower = lower
        self.upper = upper
        self.description = description
    }

    public func contains(_ version: AppVersion) -> Bool {
        if let lower {
            if lower.inclusive ? version < lower.version : version <= lower.version { return false }
        }
        if let upper {
            if upper.inclusive ? version > upper.version : version >= upper.version { return false }
        }
        return true
    }

    public var isAll: Bool { lower == nil && upper == nil }

    /// Whether some version is in both ranges.
    public func overlaps(_ other: VersionRange) -> Bool {
        func tighterLower(_ a: Bound?, _ b: Bound?) -> Bound? {
            guard let a else { return b }
            guard let b else { return a }
            if a.version != b.version { return a.version > b.version ? a : b }
            return a.inclusive ? b : a
        }
        func tighterUpper(_ a: Bound?, _ b: Bound?) -> Bound? {
            guard let a else { return b }
            guard let b else { return a }
            if a.version != b.version { return a.version < b.version ? a : b }
            return a.inclusive ? b : a
        }
        guard let low = tighterLower(lower, other.lower), let high = tighterUpper(upper, other.upper) else {
            return true
        }
        return low.version < high.version || (low.version == high.version && low.inclusive && high.inclusive)
    }

    /// The same set of versions, however it is written (`4.8.x` and `>=4.8 <4.9`, `>=4.8` and `>=4.8.0`).
    public func sameVersions(as other: VersionRange) -> Bool { lower == other.lower && upper == other.upper }

    /// `4.8` as a segment: every 4.8.x, that is `>=4.8 <4.9`.
    public static func prefix(_ version: AppVersion) -> VersionRange {
        var next = version.components
        next[next.count - 1] += 1
        return VersionRange(
            lower: Bound(version: version, inclusive: true),
            upper: Bound(version: AppVersion(components: next), inclusive: false),
            description: "\(version).x")
    }

    public static func parse(_ text: String) throws -> VersionRange {
        func bad(_ why: String) -> RolloutError {
            .usage(
                "app-version range \"\(InputLimits.echo(text))\" \(why); write for example >=4.8, \">=4.8 <5\", 4.8.x or =4.8.1"
            )
        }
        guard text.utf8.count <= InputLimits.versionRangeBytes else {
            throw bad("is \(text.utf8.count) bytes, over the limit of \(InputLimits.versionRangeBytes)")
        }
        let trimmed = text.trimmingSpaces
        if trimmed == "*" || trimmed.lowercased() == "any" { return .all }
        let parts = trimmed.split(whereSeparator: { $0 == " " }).map(String.init)
        guard !parts.isEmpty, parts.count <= 2 else { throw bad("is not a range") }
        if parts.count == 1, parts[0].hasSuffix(".x") || parts[0].hasSuffix(".*") {
            guard let base = AppVersion(String(parts[0].dropLast(2))) else { throw bad("has no version before .x") }
            return prefix(base)
        }
        var lower: Bound?
        var upper: Bound?
        for part in parts {
            let op = String(part.prefix { "<>=".contains($0) })
            let rest = String(part.dropFirst(op.count))
            if rest.isEmpty {
                throw bad("has the operator \"\(op)\" with no version after it (write \(op)4.8, without a space)")
            }
            guard let version = AppVersion(rest) else {
                if op.isEmpty, AppVersion(part) == nil { throw bad("is not a range") }
                throw bad("has \"\(rest)\", which is not a numeric version")
            }
            switch op {
            case ">=", ">":
                guard lower == nil else { throw bad("has two lower bounds") }
                lower = Bound(version: version, inclusive: op == ">=")
            case "<=", "<":
                guard upper == nil else { throw bad("has two upper bounds") }
                upper = Bound(version: version, inclusive: op == "<=")
            case "=", "==":
                guard parts.count == 1 else { throw bad("mixes = with other bounds") }
                return VersionRange(
                    lower: Bound(version: version, inclusive: true), upper: Bound(version: version, inclusive: true),
                    description: "=\(version)")
            case "":
                throw bad("needs an operator: =\(part) for exactly \(part), or \(part).x for every \(part) release")
            default:
                throw bad("has the unknown operator \"\(op)\"")
            }
        }
        if let lower, let upper {
            let empty =
                upper.version < lower.version
                || (upper.version == lower.version && !(lower.inclusive && upper.inclusive))
            if empty { throw bad("contains no version") }
        }
        return VersionRange(lower: lower, upper: upper, description: parts.joined(separator: " "))
    }

    /// How specific the range is, for ordering rules: exact < bounded both sides < one side < all.
    var breadth: Int {
        switch (lower, upper) {
        case (.some(let l), .some(let u)) where l.version == u.version: return 0
        case (.some, .some): return 1
        case (.some, nil), (nil, .some): return 2
        case (nil, nil): return 3
        }
    }

    /// Every version at which membership can change, for splitting a segment into uniform pieces.
    var boundaries: [AppVersion] { [lower?.version, upper?.version].compactMap { $0 } }
}

/// A share of devices, stored as basis points (1 = 0.01%).
public struct Percent: Equatable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let basisPoints: Int

    public static let full = Percent(basisPoints: 10_000)
    public static let zero = Percent(basisPoints: 0)

    public init(basisPoints: Int) {
        precondition((0...10_000).contains(basisPoints))
        self.basisPoints = basisPoints
    }

    /// `10%`, `10`, `0.25%`: up to two decimals, from 0 to 100. Exponents, signs and anything finer
    /// than 0.01% are refused with the text quoted.
    public static func parse(_ text: String) throws -> Percent {
        let body = text.hasSuffix("%") ? String(text.dropLast()) : text
        func bad(_ why: String) -> RolloutError {
            .usage("percent \"\(text)\" \(why); write for example 10%, 0.25% or 100%")
        }
        let pieces = body.split(separator: ".", omittingEmptySubsequences: false)
        guard !body.isEmpty, pieces.count <= 2, pieces.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            !pieces[0].isEmpty
        else {
            throw bad("is not a number between 0 and 100")
        }
        let fraction = pieces.count == 2 ? pieces[1] : ""
        guard pieces.count == 1 || !fraction.isEmpty else { throw bad("is not a number between 0 and 100") }
        guard fraction.count <= 2 || fraction.dropFirst(2).allSatisfy({ $0 == "0" }) else {
            throw bad("is finer than 0.01%, the smallest step a device can be bucketed at")
        }
        // Leading zeros say nothing (00010% is 10%); what is left has at most three digits up to 100.
        let digits = pieces[0].drop { $0 == "0" }
        guard digits.count <= 3, let whole = Int(digits.isEmpty ? "0" : String(digits)) else {
            throw bad("is over 100%")
        }
        let hundredths = Int((fraction + "00").prefix(2))!
        let basisPoints = whole * 100 + hundredths
        guard basisPoints <= 10_000 else { throw bad("is over 100%") }
        return Percent(basisPoints: basisPoints)
    }

    public static func < (lhs: Percent, rhs: Percent) -> Bool { lhs.basisPoints < rhs.basisPoints }

    /// `10%`, `0.25%`, `100%`.
    public var description: String {
        let whole = basisPoints / 100
        let rest = basisPoints % 100
        if rest == 0 { return "\(whole)%" }
        return rest % 10 == 0 ? "\(whole).\(rest / 10)%" : "\(whole).\(rest < 10 ? "0" : "")\(rest)%"
    }
}
