import Foundation
import RolloutModel

/// A change's line in `changes.jsonl` (docs/audit.md, "The index"): written when the change is
/// indexed, read back when a query reaches it.
extension AuditEntry {
    /// The index line: the plan is referenced by its git blob ids, not copied. Canonical JSON
    /// (RFC 8785), written member by member in the sorted order `JSONWriter.canonical` would give,
    /// without building and sorting a dictionary for each of the history's changes.
    func indexLine() -> [UInt8] {
        AuditEntry.indexLine(
            sequence: sequence, commit: commit, record: (summary, actor, action, reason, packs, time), locales: locales,
            plans: planChanges.map { ($0.locale, $0.beforeBlob, $0.afterBlob) })
    }

    /// The index line of the change at `sequence`, from its commit's record and its plans' blob ids
    /// (what the log index writes for a commit read from its `Rollout-Plans` trailer alone).
    static func indexLine(
        sequence: Int, commit: String,
        record: (summary: String, actor: String, action: String, reason: String?, packs: [String], time: Timestamp),
        locales: [String], plans: [PlanReference]
    ) -> [UInt8] {
        var line = CanonicalLine(capacity: 256 + record.summary.utf8.count)
        line.open("{")
        line.key("action", first: true)
        line.string(record.action)
        line.key("actor")
        line.string(record.actor)
        line.key("commit")
        line.string(commit)
        line.key("locales")
        line.strings(locales)
        line.key("packs")
        line.strings(record.packs)
        if !plans.isEmpty {
            line.key("plans")
            line.plans(plans)
        }
        if let reason = record.reason {
            line.key("reason")
            line.string(reason)
        }
        line.key("seq")
        line.number(Double(sequence))
        line.key("summary")
        line.string(record.summary)
        line.key("time")
        line.number(Double(record.time.seconds))
        line.close("}")
        line.bytes.append(0x0A)
        return line.bytes
    }

    /// A plan change by its blob ids: the locale, before (nil: a new plan) and after.
    typealias PlanReference = (locale: String, before: String?, after: String)

    /// Reads an index line back; `loadPlan` turns a blob id into the plan it holds. A line as
    /// `indexLine` writes it, with no escape and no byte outside ASCII, is read on its bytes; any
    /// other by the strict parser (`IndexLineTests` checks that both read every line alike).
    static func parse(_ line: Substring, loadPlan: (String) -> Plan?) -> AuditEntry? {
        let bytes = Array(line.utf8)
        guard let fields = bytes.withUnsafeBufferPointer(IndexLineFields.readWritten) ?? IndexLineFields.read(bytes)
        else { return nil }
        var changes: [PlanChange] = []
        for plan in fields.plans {
            guard
                let change = PlanChange(
                    locale: plan.locale, beforeBlob: plan.before, afterBlob: plan.after, loadPlan: loadPlan)
            else { return nil }
            changes.append(change)
        }
        return AuditEntry(
            sequence: fields.seq, commit: fields.commit, time: Timestamp(seconds: Int64(fields.time)),
            actor: fields.actor, action: fields.action, summary: fields.summary, reason: fields.reason,
            locales: fields.locales, packs: fields.packs, planChanges: changes)
    }
}

/// The members of an index line.
struct IndexLineFields: Equatable {
    var action = "", actor = "", commit = "", summary = ""
    var locales: [String] = [], packs: [String] = []
    var plans: [Plan] = []
    var reason: String?
    var seq = 0, time = 0

    struct Plan: Equatable {
        let locale: String
        let before: String?
        let after: String
    }

    /// The members as the strict parser reads them; nil for a line that is not a change's.
    static func read(_ bytes: [UInt8]) -> IndexLineFields? {
        guard let value = try? StrictJSONParser.parse(bytes), let o = value.objectValue,
            let seq = o["seq"]?.integerValue, let commit = o["commit"]?.stringValue, let time = o["time"]?.integerValue,
            let actor = o["actor"]?.stringValue, let action = o["action"]?.stringValue,
            let summary = o["summary"]?.stringValue
        else { return nil }
        var fields = IndexLineFields(
            action: action, actor: actor, commit: commit, summary: summary,
            locales: o["locales"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            packs: o["packs"]?.arrayValue?.compactMap(\.stringValue) ?? [], reason: o["reason"]?.stringValue,
            seq: seq, time: time)
        for item in o["plans"]?.arrayValue ?? [] {
            guard let plan = item.objectValue, let locale = plan["locale"]?.stringValue,
                let after = plan["after"]?.stringValue
            else { return nil }
            fields.plans.append(Plan(locale: locale, before: plan["before"]?.stringValue, after: after))
        }
        return fields
    }

    /// The members of a line exactly as `indexLine` writes it, read on its bytes; nil for anything
    /// else (an escape, a byte outside ASCII, another member or order), which `read` then reads.
    static func readWritten(_ bytes: UnsafeBufferPointer<UInt8>) -> IndexLineFields? {
        var cursor = Cursor(bytes: bytes)
        var fields = IndexLineFields()
        guard cursor.literal("{\"action\":"), let action = cursor.string(), cursor.literal(",\"actor\":"),
            let actor = cursor.string(), cursor.literal(",\"commit\":"), let commit = cursor.string(),
            cursor.literal(",\"locales\":"), let locales = cursor.strings(), cursor.literal(",\"packs\":"),
            let packs = cursor.strings()
        else { return nil }
        (fields.action, fields.actor, fields.commit, fields.locales, fields.packs) = (
            action, actor, commit, locales, packs
        )
        if cursor.literal(",\"plans\":[") {
            repeat {
                guard cursor.literal("{\"after\":"), let after = cursor.string(), cursor.literal(",\"before\":")
                else { return nil }
                var before: String?
                if !cursor.literal("null") {
                    guard let read = cursor.string() else { return nil }
                    before = read
                }
                guard cursor.literal(",\"locale\":"), let locale = cursor.string(), cursor.literal("}") else {
                    return nil
                }
                fields.plans.append(Plan(locale: locale, before: before, after: after))
            } while cursor.literal(",")
            guard cursor.literal("]") else { return nil }
        }
        if cursor.literal(",\"reason\":") {
            guard let reason = cursor.string() else { return nil }
            fields.reason = reason
        }
        guard cursor.literal(",\"seq\":"), let seq = cursor.integer(), cursor.literal(",\"summary\":"),
            let summary = cursor.string(), cursor.literal(",\"time\":"), let time = cursor.integer(),
            cursor.literal("}"), cursor.index == bytes.count
        else { return nil }
        (fields.seq, fields.summary, fields.time) = (seq, summary, time)
        return fields
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        /// Takes `text` when the bytes go on with it.
        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count - index >= count,
                memcmp(bytes.baseAddress! + index, text.utf8Start, count) == 0
            else { return false }
            index += count
            return true
        }

        /// A string of printable ASCII without a backslash; nil for any other.
        mutating func string() -> String? {
            guard index < bytes.count, bytes[index] == 0x22 else { return nil }
            let start = index + 1
            var end = start
            while end < bytes.count, bytes[end] != 0x22 {
                guard (0x20..<0x7F).contains(bytes[end]), bytes[end] != 0x5C else { return nil }
                end += 1
            }
            guard end < bytes.count else { return nil }
            index = end + 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }

        mutating func strings() -> [String]? {
            guard literal("[") else { return nil }
            var items: [String] = []
            if literal("]") { return items }
            repeat {
                guard let item = string() else { return nil }
                items.append(item)
            } while literal(",")
            return literal("]") ? items : nil
        }

        /// A whole number as `JSONWriter.formatNumber` writes one: digits, no sign, no leading zero.
        mutating func integer() -> Int? {
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            let count = index - start
            guard count > 0, count <= 15, count == 1 || bytes[start] != 0x30 else { return nil }
            return bytes[start..<index].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
    }
}

/// The bytes of one canonical JSON line, appended member by member by a writer that gives the
/// members in sorted order itself.
private struct CanonicalLine {
    var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func open(_ bracket: Unicode.Scalar) { bytes.append(UInt8(ascii: bracket)) }

    mutating func close(_ bracket: Unicode.Scalar) { bytes.append(UInt8(ascii: bracket)) }

    /// `"name":`, after a comma unless it is the object's first member.
    mutating func key(_ name: StaticString, first: Bool = false) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    mutating func string(_ value: String) { JSONWriter.writeString(value, into: &bytes) }

    mutating func number(_ value: Double) { bytes.append(contentsOf: JSONWriter.formatNumber(value).utf8) }

    mutating func strings(_ items: [String]) {
        open("[")
        for (i, item) in items.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            string(item)
        }
        close("]")
    }

    /// `[{"after":…,"before":…,"locale":…},…]`: each plan by its blob ids (`before` null for a new plan).
    mutating func plans(_ changes: [AuditEntry.PlanReference]) {
        open("[")
        for (i, change) in changes.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            open("{")
            key("after", first: true)
            string(change.after)
            key("before")
            if let before = change.before { string(before) } else { bytes.append(contentsOf: "null".utf8) }
            key("locale")
            string(change.locale)
            close("}")
        }
        close("]")
    }
}
