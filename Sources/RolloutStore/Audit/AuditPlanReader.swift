import RolloutModel

/// Reads a plan file as rollout writes it (`JSONWriter.pretty(plan.jsonValue)`: members in sorted
/// order, no escapes, plain integers) straight into a `Plan`, without a `JSONValue` tree; a log index
/// build reads every plan version ever written. It answers nil for anything else - another member,
/// another order, an escape, a fraction or exponent, a BOM, invalid UTF-8 - and the caller then reads
/// the bytes with `Plan.parse`, so what is accepted never depends on this reader: whatever it returns
/// is what `Plan.parse` returns for the same bytes.
enum AuditPlanReader {
    static func read(_ bytes: [UInt8]) -> Plan? {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = JSONFieldCursor(bytes: buffer)
            guard let plan = cursor.plan() else { return nil }
            return cursor.atEnd() ? plan : nil
        }
    }

    /// The plan in blob `blob`'s `bytes`: this reader, then `Plan.parse` for whatever it does not
    /// take; nil when neither reads a plan. `strictOnly`: `Plan.parse` alone (tests compare the two).
    static func plan(_ bytes: [UInt8], blob: String, strictOnly: Bool) -> Plan? {
        (strictOnly ? nil : read(bytes)) ?? (try? Plan.parse(bytes, source: blob))
    }
}

/// What only a plan file has.
extension JSONFieldCursor {
    /// A share in basis points: an integer from 0 to 10,000.
    mutating func basisPoints() -> Int? {
        integer().flatMap { (0...10_000).contains($0) ? $0 : nil }
    }

    /// A version range as `VersionRange.parse` reads it.
    mutating func versionRange() -> VersionRange? {
        string().flatMap { try? VersionRange.parse($0) }
    }

    /// A time in ISO 8601, as `Timestamp(iso8601:)` reads it.
    mutating func timestamp() -> Timestamp? {
        string().flatMap { Timestamp(iso8601: $0) }
    }

    /// The elements of an array, each read by `element`; nil if any is not what it wants.
    mutating func array<T>(_ element: (inout JSONFieldCursor) -> T?) -> [T]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var items: [T] = []
        if take(UInt8(ascii: "]")) { return items }
        while true {
            guard let item = element(&self) else { return nil }
            items.append(item)
            guard let more = separator(closing: UInt8(ascii: "]")) else { return nil }
            if !more { return items }
        }
    }

    mutating func packRef() -> Plan.PackRef? {
        guard take(UInt8(ascii: "{")), member("contentVersion"), let contentVersion = integer(),
            take(UInt8(ascii: ",")),
            member("minAppVersion"), let text = string(), let minApp = AppVersion(text), take(UInt8(ascii: "}"))
        else { return nil }
        return Plan.PackRef(contentVersion: contentVersion, minAppVersion: minApp)
    }

    mutating func rule() -> Plan.Rule? {
        guard take(UInt8(ascii: "{")), member("appVersions"), let range = versionRange(),
            take(UInt8(ascii: ",")), member("basisPoints"), let share = basisPoints(),
            take(UInt8(ascii: ",")), member("pack"), let pack = packRef(),
            take(UInt8(ascii: ",")), member("regions"), let regions = array({ $0.string() }),
            take(UInt8(ascii: ",")), member("salt"), let salt = string(), take(UInt8(ascii: "}"))
        else { return nil }
        return Plan.Rule(
            pack: pack, regions: regions, versions: range, share: Percent(basisPoints: share), salt: salt)
    }

    mutating func withdrawal() -> Plan.Withdrawal? {
        guard take(UInt8(ascii: "{")), member("appVersions"), let range = versionRange(),
            take(UInt8(ascii: ",")), member("region"), let region = string(), take(UInt8(ascii: "}"))
        else { return nil }
        return Plan.Withdrawal(region: region, versions: range)
    }

    mutating func lastChange() -> Plan.LastChange? {
        guard take(UInt8(ascii: "{")), member("action"), let action = string(), take(UInt8(ascii: ",")),
            member("actor"), let actor = string(),
            take(UInt8(ascii: ","))
        else { return nil }
        var reason: String?
        if member("reason") {
            guard let text = string(), take(UInt8(ascii: ",")) else { return nil }
            reason = text
        }
        guard member("time"), let time = timestamp(), take(UInt8(ascii: "}")) else { return nil }
        return Plan.LastChange(action: action, actor: actor, time: time, reason: reason)
    }

    mutating func ramp() -> Plan.Ramp? {
        guard take(UInt8(ascii: "{")), member("every"), let every = integer(), take(UInt8(ascii: ",")),
            member("paused"), let paused = bool(), take(UInt8(ascii: ",")),
            member("since"), let since = timestamp(), take(UInt8(ascii: ",")),
            member("step"), let step = integer(), take(UInt8(ascii: ",")),
            member("steps"), let steps = array({ $0.basisPoints() }), take(UInt8(ascii: "}")),
            !steps.isEmpty, steps.indices.contains(step)
        else { return nil }
        return Plan.Ramp(
            steps: steps.map { Percent(basisPoints: $0) }, every: Int64(every), step: step, since: since,
            paused: paused)
    }

    /// The members in the order the writer sorts them. Any member but `locale` may be absent (a plan
    /// written by hand or by a tool), as `Plan.parse` allows, with the same defaults.
    mutating func plan() -> Plan? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var open = true
        /// Reads member `name` with `value` if it comes next; false only for a member that is there but not understood.
        func next(_ cursor: inout JSONFieldCursor, _ name: StaticString, _ value: (inout JSONFieldCursor) -> Bool)
            -> Bool
        {
            guard open, cursor.member(name) else { return true }
            guard value(&cursor), let more = cursor.separator(closing: UInt8(ascii: "}")) else { return false }
            open = more
            return true
        }
        var baseline: Plan.PackRef?
        var blocked: [Int] = []
        var bundledOnly = false
        var lastChange: Plan.LastChange?
        var locale: String?
        var previous: [Plan.PackRef] = []
        var ramp: Plan.Ramp?
        var rules: [Plan.Rule] = []
        var sequence = 0
        var withdrawals: [Plan.Withdrawal] = []
        let understood =
            next(&self, "baseline") { c in
                c.skipWhitespace()
                if c.literal("null") { return true }
                baseline = c.packRef()
                return baseline != nil
            }
            && next(&self, "blocked") { c in c.array({ $0.integer() }).map { blocked = $0 } != nil }
            && next(&self, "bundledOnly") { c in c.bool().map { bundledOnly = $0 } != nil }
            && next(&self, "lastChange") { c in c.lastChange().map { lastChange = $0 } != nil }
            && next(&self, "locale") { c in c.string().map { locale = $0 } != nil }
            && next(&self, "previousBaselines") { c in c.array({ $0.packRef() }).map { previous = $0 } != nil }
            && next(&self, "ramp") { c in c.ramp().map { ramp = $0 } != nil }
            && next(&self, "rules") { c in c.array({ $0.rule() }).map { rules = $0 } != nil }
            && next(&self, "sequence") { c in c.integer().map { sequence = $0 } != nil }
            && next(&self, "withdrawn") { c in c.array({ $0.withdrawal() }).map { withdrawals = $0 } != nil }
        // Still open: a member this reader does not know, or a trailing comma.
        guard understood, !open, let locale else { return nil }
        var plan = Plan(
            locale: locale, baseline: baseline, previousBaselines: previous, rules: rules, blocked: blocked,
            withdrawals: withdrawals,
            bundledOnly: bundledOnly, sequence: sequence, lastChange: lastChange)
        plan.ramp = ramp
        return plan
    }
}
