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

    /// Reads an index line back; `loadPlan` turns a blob id into the plan it holds.
    static func parse(_ line: Substring, loadPlan: (String) -> Plan?) -> AuditEntry? {
        guard let value = try? StrictJSONParser.parse(Array(line.utf8)), let o = value.objectValue,
            let seq = o["seq"]?.integerValue, let commit = o["commit"]?.stringValue, let time = o["time"]?.integerValue,
            let actor = o["actor"]?.stringValue, let action = o["action"]?.stringValue,
            let summary = o["summary"]?.stringValue
        else { return nil }
        var changes: [PlanChange] = []
        for item in o["plans"]?.arrayValue ?? [] {
            guard let plan = item.objectValue, let locale = plan["locale"]?.stringValue,
                let after = plan["after"]?.stringValue,
                let change = PlanChange(
                    locale: locale, beforeBlob: plan["before"]?.stringValue, afterBlob: after, loadPlan: loadPlan)
            else { return nil }
            changes.append(change)
        }
        return AuditEntry(
            sequence: seq, commit: commit, time: Timestamp(seconds: Int64(time)), actor: actor, action: action,
            summary: summary, reason: o["reason"]?.stringValue,
            locales: o["locales"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            packs: o["packs"]?.arrayValue?.compactMap(\.stringValue) ?? [], planChanges: changes)
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
