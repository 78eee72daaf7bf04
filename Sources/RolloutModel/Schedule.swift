/// A locale's changes waiting for their time (`promote --at`; docs/targeting.md, "Scheduled
/// changes"): `rollout guard` applies each once it is due, through the same promote, and removes it
/// in the commit that applies it. Kept in its own file per locale, not in the plan, because the plan
/// reaches every device in the published manifest: a pending change is the repository's business,
/// and devices learn of it only once it is applied and published.
public struct Schedule: Equatable, Sendable {
    /// One promote waiting for its time: what it asks for, as `PromoteRequest` takes it, and who
    /// asked for it and when.
    public struct Pending: Equatable, Sendable {
        /// Numbered per locale from 1, never reused (a cancelled number stays spent).
        public let id: Int
        /// When it becomes due (UTC; the offset it was given in is honoured when it is read).
        public let at: Timestamp
        public let pack: PackID
        public let share: Percent
        public let regions: [String]?
        public let versions: VersionRange?
        /// `--ramp`: its shares, and the seconds each step lasts at least; it starts when applied.
        public let rampSteps: [Percent]?
        public let rampEvery: Int64?
        /// Segments accepted without enough data (as the promote gate names them), used again when applied.
        public let accepting: [String]
        public let reason: String?
        public let scheduledBy: String
        public let scheduledAt: Timestamp

        public init(
            id: Int, at: Timestamp, request: PromoteRequest, accepting: [String], scheduledBy: String,
            scheduledAt: Timestamp
        ) {
            self.id = id
            self.at = at
            self.pack = request.pack
            self.share = request.share
            self.regions = request.regions
            self.versions = request.versions
            self.rampSteps = request.ramp?.steps
            self.rampEvery = request.ramp?.every
            self.accepting = accepting
            self.reason = request.reason
            self.scheduledBy = scheduledBy
            self.scheduledAt = scheduledAt
        }

        /// The promote it stands for, as the command line would have asked for it at `at`.
        public var request: PromoteRequest {
            PromoteRequest(
                pack: pack, share: share, regions: regions, versions: versions, reason: reason,
                ramp: rampSteps.map { ($0, rampEvery ?? 86_400) })
        }

        /// "promote tr-TR@19 to 10%[ in TR][ on >=4.8][, ramp 1%,5%,100% every 86400s]".
        public var summary: String {
            "promote \(pack) to \(share)" + (regions.map { " in \($0.joined(separator: ","))" } ?? "")
                + (versions.map { " on \($0)" } ?? "")
                + (rampSteps.map { ", ramp " + $0.map(\.description).joined(separator: ",") } ?? "")
        }

        public func isDue(at now: Timestamp) -> Bool { at <= now }
    }

    public let locale: String
    /// Oldest due first (by time, then number): the order guard applies them in.
    public private(set) var pending: [Pending]
    /// The number the next pending change gets.
    public private(set) var nextID: Int

    public init(locale: String, pending: [Pending] = [], nextID: Int = 1) {
        self.locale = locale
        self.pending = pending.sorted { ($0.at, $0.id) < ($1.at, $1.id) }
        self.nextID = max(nextID, (pending.map(\.id).max() ?? 0) + 1)
    }

    /// Adds a change for `request` due at `at`, numbered `nextID`; returns it.
    public mutating func add(
        _ request: PromoteRequest, at: Timestamp, accepting: [String], by actor: String, now: Timestamp
    ) -> Pending {
        let change = Pending(
            id: nextID, at: at, request: request, accepting: accepting, scheduledBy: actor, scheduledAt: now)
        self = Schedule(locale: locale, pending: pending + [change], nextID: nextID + 1)
        return change
    }

    /// Takes out the change numbered `id`; nil when there is none.
    public mutating func remove(_ id: Int) -> Pending? {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return nil }
        return pending.remove(at: index)
    }

    /// The changes due at `now`, in the order guard applies them.
    public func due(at now: Timestamp) -> [Pending] { pending.filter { $0.isDue(at: now) } }
}

// MARK: JSON

extension Schedule {
    public var jsonValue: JSONValue {
        ["locale": .string(locale), "nextId": .integer(nextID), "pending": .array(pending.map(\.jsonValue))]
    }

    public static func parse(_ bytes: [UInt8], source: String) throws -> Schedule {
        func fail(_ why: String) -> RolloutError { .badInput("\(source): \(why)") }
        let value: JSONValue
        do { value = try StrictJSONParser.parse(bytes) } catch let error as JSONParseError {
            throw RolloutError.badInput("\(source):\(error.line):\(error.column): \(error.message)")
        }
        guard let o = value.objectValue, let locale = o["locale"]?.stringValue,
            let nextID = o["nextId"]?.integerValue, let items = o["pending"]?.arrayValue
        else { throw fail("a schedule needs locale, nextId and pending") }
        let pending = try items.map { item -> Pending in
            guard let change = item.objectValue.flatMap({ Pending.parse($0, locale: locale) }) else {
                throw fail("a pending change needs id, at, pack, basisPoints, scheduledBy and scheduledAt")
            }
            return change
        }
        return Schedule(locale: locale, pending: pending, nextID: nextID)
    }
}

extension Schedule.Pending {
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "id": .integer(id), "at": .string(at.description), "pack": .string(pack.description),
            "basisPoints": .integer(share.basisPoints), "summary": .string(summary),
            "accepting": .array(accepting.map { .string($0) }), "scheduledBy": .string(scheduledBy),
            "scheduledAt": .string(scheduledAt.description),
        ]
        if let regions { object["regions"] = .array(regions.map { .string($0) }) }
        if let versions { object["appVersions"] = .string(versions.description) }
        if let rampSteps {
            object["ramp"] = [
                "steps": .array(rampSteps.map { .integer($0.basisPoints) }), "every": .integer(Int(rampEvery ?? 0)),
            ]
        }
        if let reason { object["reason"] = .string(reason) }
        return .object(object)
    }

    /// One stored change; nil when a field is missing or unreadable, or its pack is of another locale.
    static func parse(_ o: [String: JSONValue], locale: String) -> Schedule.Pending? {
        guard let id = o["id"]?.integerValue, let at = o["at"]?.stringValue.flatMap(Timestamp.init(iso8601:)),
            let pack = o["pack"]?.stringValue.flatMap({ try? PackID.parse($0) }), pack.locale == locale,
            let points = o["basisPoints"]?.integerValue, (1...10_000).contains(points),
            let by = o["scheduledBy"]?.stringValue,
            let when = o["scheduledAt"]?.stringValue.flatMap(Timestamp.init(iso8601:))
        else { return nil }
        let versions = o["appVersions"]?.stringValue.flatMap { try? VersionRange.parse($0) }
        if o["appVersions"] != nil && versions == nil { return nil }
        let ramp = o["ramp"]?.objectValue
        let steps = ramp?["steps"]?.arrayValue?.compactMap(\.integerValue).map { Percent(basisPoints: $0) }
        let every = ramp?["every"]?.integerValue.map(Int64.init)
        if ramp != nil && (steps?.isEmpty ?? true || every == nil) { return nil }
        let request = PromoteRequest(
            pack: pack, share: Percent(basisPoints: points),
            regions: o["regions"]?.arrayValue.map { $0.compactMap(\.stringValue) }, versions: versions,
            reason: o["reason"]?.stringValue, ramp: steps.map { ($0, every ?? 86_400) })
        return Schedule.Pending(
            id: id, at: at, request: request,
            accepting: o["accepting"]?.arrayValue?.compactMap(\.stringValue) ?? [], scheduledBy: by, scheduledAt: when)
    }
}
