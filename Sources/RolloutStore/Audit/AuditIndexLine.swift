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

    /// The entry an index line's members describe (`IndexLineFields.parse`); `loadPlan` turns a blob
    /// id into the plan it holds. nil when a plan after a change cannot be read.
    init?(_ fields: IndexLineFields, loadPlan: (String) -> Plan?) {
        var changes: [PlanChange] = []
        for plan in fields.plans {
            guard
                let change = PlanChange(
                    locale: plan.locale, beforeBlob: plan.before, afterBlob: plan.after, loadPlan: loadPlan)
            else { return nil }
            changes.append(change)
        }
        self.init(
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

    /// The members of an index line: read on its bytes when `indexLine` wrote it (`readWritten`),
    /// otherwise by the strict parser; nil for a line that is not a change's.
    static func parse(_ line: Substring) -> IndexLineFields? {
        let bytes = Array(line.utf8)
        return bytes.withUnsafeBufferPointer(readWritten) ?? read(bytes)
    }

    /// The members of a line with the members in `indexLine`'s order, read on its bytes; nil for
    /// anything else (an escape, another member or order, a fraction), which `read` then reads. What
    /// it returns is what `read` returns for the same bytes (`AuditIndexLineTests`).
    static func readWritten(_ bytes: UnsafeBufferPointer<UInt8>) -> IndexLineFields? {
        var c = JSONFieldCursor(bytes: bytes)
        let (open, comma, close) = (UInt8(ascii: "{"), UInt8(ascii: ","), UInt8(ascii: "}"))
        guard c.take(open), c.member("action"), let action = c.string(), c.take(comma), c.member("actor"),
            let actor = c.string(), c.take(comma), c.member("commit"), let commit = c.string(), c.take(comma),
            c.member("locales"), let locales = c.array({ $0.string() }), c.take(comma), c.member("packs"),
            let packs = c.array({ $0.string() }), c.take(comma)
        else { return nil }
        var fields = IndexLineFields(action: action, actor: actor, commit: commit, locales: locales, packs: packs)
        if c.member("plans") {
            guard let plans = c.array({ $0.planReference() }), c.take(comma) else { return nil }
            fields.plans = plans
        }
        if c.member("reason") {
            guard let reason = c.string(), c.take(comma) else { return nil }
            fields.reason = reason
        }
        guard c.member("seq"), let seq = c.integer(), c.take(comma), c.member("summary"), let summary = c.string(),
            c.take(comma), c.member("time"), let time = c.integer(), c.take(close), c.atEnd()
        else { return nil }
        (fields.seq, fields.summary, fields.time) = (seq, summary, time)
        return fields
    }
}

extension JSONFieldCursor {
    /// `{"after":…,"before":…,"locale":…}`, `before` null for a new plan.
    fileprivate mutating func planReference() -> IndexLineFields.Plan? {
        let comma = UInt8(ascii: ",")
        guard take(UInt8(ascii: "{")), member("after"), let after = string(), take(comma), member("before")
        else { return nil }
        var before: String?
        skipWhitespace()
        if !literal("null") {
            guard let read = string() else { return nil }
            before = read
        }
        guard take(comma), member("locale"), let locale = string(), take(UInt8(ascii: "}")) else { return nil }
        return IndexLineFields.Plan(locale: locale, before: before, after: after)
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
