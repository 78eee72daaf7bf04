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
            var cursor = Cursor(bytes: buffer)
            guard let plan = cursor.plan() else { return nil }
            return cursor.atEnd() ? plan : nil
        }
    }

    private struct Cursor: JSONByteCursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        /// Consumes `"name":` when the next member is `name`; leaves the cursor where it was otherwise.
        mutating func member(_ name: StaticString) -> Bool {
            skipWhitespace()
            let count = name.utf8CodeUnitCount
            guard index + count + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\""), matches(name, at: index + 1),
                bytes[index + count + 1] == UInt8(ascii: "\"")
            else { return false }
            let start = index
            index += count + 2
            guard take(UInt8(ascii: ":")) else {
                index = start
                return false
            }
            return true
        }

        /// `,` before the next member or element, or nothing before the closing bracket.
        mutating func separator(closing: UInt8) -> Bool? {
            if take(UInt8(ascii: ",")) { return true }
            if take(closing) { return false }
            return nil
        }

        /// A string without escapes; non-ASCII text must be valid UTF-8 (what the strict parser demands).
        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            var ascii = true
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    index += 1
                    return ascii ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                if byte >= 0x80 { ascii = false }
                index += 1
            }
            return nil
        }

        /// An integer written plainly, with at most 15 digits: always exact, whatever parser reads it.
        mutating func integer() -> Int? {
            skipWhitespace()
            var negative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
                negative = true
                index += 1
            }
            let start = index
            var value = 0
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                guard index - start < 15 else { return nil }
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            let digits = index - start
            guard digits >= 1, digits == 1 || bytes[start] != UInt8(ascii: "0"), !(negative && value == 0) else {
                return nil
            }
            if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
                return nil
            }
            return negative ? -value : value
        }

        mutating func bool() -> Bool? {
            skipWhitespace()
            if literal("true") { return true }
            if literal("false") { return false }
            return nil
        }

        mutating func literal(_ text: StaticString) -> Bool {
            guard matches(text, at: index) else { return false }
            index += text.utf8CodeUnitCount
            return true
        }

        /// Whether the bytes at `position` are `text`'s.
        func matches(_ text: StaticString, at position: Int) -> Bool {
            let count = text.utf8CodeUnitCount
            guard position + count <= bytes.count else { return false }
            for k in 0..<count where bytes[position + k] != text.utf8Start[k] { return false }
            return true
        }

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
        mutating func array<T>(_ element: (inout Cursor) -> T?) -> [T]? {
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
            func next(_ cursor: inout Cursor, _ name: StaticString, _ value: (inout Cursor) -> Bool) -> Bool {
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
}
