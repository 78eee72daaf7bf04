import Foundation
import RolloutModel
import RolloutStore

/// The deliveries that failed, kept in the repository's local state (docs/notifications.md, "The
/// queue"): `notify/queue/<delivery id>.json` inside the repository's git directory, beside its
/// objects, so never committed, pushed or cloned. One file per delivery, each replaced atomically,
/// so two commands that queue at once never lose each other's entries. `notify/sent.json` keeps
/// what guard already announced (a hold, a key's expiry), so a cron job does not repeat it.
struct NotifyQueue {
    let directory: String

    init(repository: PackRepository) { directory = repository.path + "/notify" }

    var queueDirectory: String { directory + "/queue" }

    struct Entry {
        var hook: String
        var deliveryID: String
        /// The event document (`Notice.document`), without its delivery id and send time.
        var document: [String: JSONValue]
        var attempts: Int
        var lastError: String
        var firstTried: Timestamp
        var lastTried: Timestamp

        var jsonValue: JSONValue {
            [
                "hook": .string(hook), "deliveryId": .string(deliveryID), "event": .object(document),
                "attempts": .integer(attempts), "lastError": .string(lastError),
                "firstTried": .string(firstTried.description), "lastTried": .string(lastTried.description),
            ]
        }

        init(
            hook: String, deliveryID: String, document: [String: JSONValue], attempts: Int, lastError: String,
            firstTried: Timestamp, lastTried: Timestamp
        ) {
            self.hook = hook
            self.deliveryID = deliveryID
            self.document = document
            self.attempts = attempts
            self.lastError = lastError
            self.firstTried = firstTried
            self.lastTried = lastTried
        }

        init?(_ value: JSONValue) {
            guard let o = value.objectValue, let hook = o["hook"]?.stringValue,
                let id = o["deliveryId"]?.stringValue, let document = o["event"]?.objectValue,
                let attempts = o["attempts"]?.integerValue,
                let first = o["firstTried"]?.stringValue.flatMap(Timestamp.init(iso8601:)),
                let last = o["lastTried"]?.stringValue.flatMap(Timestamp.init(iso8601:))
            else { return nil }
            self.init(
                hook: hook, deliveryID: id, document: document, attempts: attempts,
                lastError: o["lastError"]?.stringValue ?? "", firstTried: first, lastTried: last)
        }
    }

    /// Every queued delivery, oldest first. A file that cannot be read is skipped (and stays).
    func entries() -> [Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: queueDirectory)) ?? []
        return names.filter { $0.hasSuffix(".json") }.compactMap { name in
            let path = queueDirectory + "/" + name
            return (try? LocalFile.read(path, name: path, describedAs: "queued notification"))
                .flatMap { try? StrictJSONParser.parse($0) }.flatMap(Entry.init)
        }.sorted { ($0.firstTried, $0.deliveryID) < ($1.firstTried, $1.deliveryID) }
    }

    func save(_ entry: Entry) throws {
        try LocalFile.makeDirectories(queueDirectory, mode: 0o700, purpose: "create the notification queue")
        let path = queueDirectory + "/\(entry.deliveryID).json"
        try LocalFile.replace(path, with: JSONWriter.pretty(entry.jsonValue), name: path, mode: 0o600)
    }

    func remove(_ deliveryID: String) {
        unlink(queueDirectory + "/\(deliveryID).json")
    }

    /// What was announced last, by subject ("hold tr-TR", "key ID").
    func announced() -> [String: String] {
        let path = directory + "/sent.json"
        guard let bytes = try? LocalFile.read(path, name: path, describedAs: "notification record"),
            let object = (try? StrictJSONParser.parse(bytes))?.objectValue
        else { return [:] }
        return object.compactMapValues(\.stringValue)
    }

    func saveAnnounced(_ record: [String: String]) throws {
        try LocalFile.makeDirectories(directory, mode: 0o700, purpose: "create the notification queue")
        let path = directory + "/sent.json"
        try LocalFile.replace(path, with: JSONWriter.pretty(.object(record.mapValues { .string($0) })), name: path)
    }
}
