import Foundation
import RolloutModel

extension RolloutClient {
    /// Posted on `NotificationCenter.default` (object: the client) whenever the strings `string(_:)`
    /// returns may have changed; `userInfo[RolloutClient.changeKey]` is the `Change`.
    public static let stringsDidChangeNotification = Notification.Name("RolloutClient.stringsDidChange")
    /// The `userInfo` key of `stringsDidChangeNotification` that holds the `Change`.
    public static let changeKey = "change"

    /// Why the strings changed, and the packs concerned.
    public struct Change: Equatable, Sendable {
        public enum Reason: String, Equatable, Sendable {
            /// Pending packs became active (`activatePending()`, or a refresh that replaced a
            /// dropped active pack at once).
            case activated
            /// `setLocale(_:)` switched the device to another locale's chain.
            case localeChanged
            /// The active pack gave way to the previous one (`markActivePackFailed()`, or the
            /// crash-loop guard at start).
            case rolledBack
            /// A refresh took packs away (blocked, a kill switch, nothing left for this device).
            case dropped
        }

        public let reason: Reason
        /// The packs that became active (`activated`), were dropped (`dropped`), or were given up
        /// (`rolledBack`); empty for `localeChanged`.
        public let packs: [PackID]
        /// The device's locale after the change.
        public let locale: String

        public init(reason: Reason, packs: [PackID], locale: String) {
            self.reason = reason
            self.packs = packs
            self.locale = locale
        }
    }

    /// A new stream of every change from now on, for as long as the caller iterates it; each call
    /// returns its own stream, so any number of subscribers each see every change.
    public var changes: AsyncStream<Change> { observers.subscribe() }

    /// Tells the stream subscribers and NotificationCenter, outside every lock of the client.
    func announce(_ changes: [Change]) {
        for change in changes {
            observers.yield(change)
            NotificationCenter.default.post(
                name: RolloutClient.stringsDidChangeNotification, object: self,
                userInfo: [RolloutClient.changeKey: change])
        }
    }
}

/// The continuations of the live `changes` streams.
/// `@unchecked Sendable`: `lock` guards `next` and `continuations` (`deinit` runs when no one else can).
final class Observers: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var continuations: [Int: AsyncStream<RolloutClient.Change>.Continuation] = [:]

    func subscribe() -> AsyncStream<RolloutClient.Change> {
        let (stream, continuation) = AsyncStream<RolloutClient.Change>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = lock.withLock {
            defer { next += 1 }
            continuations[next] = continuation
            return next
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.withLock { _ = self.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func yield(_ change: RolloutClient.Change) {
        for continuation in lock.withLock({ Array(continuations.values) }) { continuation.yield(change) }
    }

    deinit {
        for continuation in continuations.values { continuation.finish() }
    }
}
