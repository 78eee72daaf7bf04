import Foundation
import RolloutModel
import RolloutStore

/// Tells the policy's hooks what a command did, after its change landed (docs/notifications.md).
/// Nothing here fails the command: a delivery that fails is queued (`NotifyQueue`) and warned about
/// on stderr, and every delivery together waits at most the policy's `timeoutSeconds` (and the
/// helper's start), so a revert's commit is in place before the first byte is sent and the revert
/// returns within that bound even when a receiver hangs.
enum Notifier {
    /// How many times the commands that send try a queued delivery on their own; `notify retry`
    /// tries every queued one, whatever its count.
    static let automaticAttempts = 5
    /// Beyond the time-out: the helper's start and exit.
    static let helperGrace = 3.0

    struct Delivery {
        var hook: String
        var deliveryID: String
        var document: [String: JSONValue]
        var queued: NotifyQueue.Entry?
    }

    struct Sent {
        var delivery: Delivery
        /// Why it was not delivered; nil when the hook answered 2xx.
        var error: String?
    }

    /// After a change landed: every hook that hears a notice is told, and the queued deliveries
    /// tried so far fewer than `automaticAttempts` times go in the same batch. Warns on stderr for
    /// each delivery that failed (it is queued).
    static func announce(_ notices: [Notice], repository: PackRepository, context: CommandContext) {
        guard !notices.isEmpty else { return }
        do {
            let policy = try repository.snapshot().policy().notify
            guard !policy.hooks.isEmpty else { return }
            let queue = NotifyQueue(repository: repository)
            var batch = notices.flatMap { deliveries(for: $0, policy: policy) }
            let fresh = Set(batch.map(\.deliveryID))
            batch += queue.entries().filter {
                $0.attempts < automaticAttempts && !fresh.contains($0.deliveryID) && policy.hook(named: $0.hook) != nil
            }.map { Delivery(hook: $0.hook, deliveryID: $0.deliveryID, document: $0.document, queued: $0) }
            for sent in deliver(batch, policy: policy, queue: queue, context: context) {
                guard let error = sent.error else { continue }
                context.diagnostics(warning(sent.delivery, error: error))
            }
        } catch {
            context.diagnostics("warning: no notification was sent: \(Refusals.message(of: error).oneLine)\n")
        }
    }

    static func warning(_ delivery: Delivery, error: String) -> String {
        let event = delivery.document["event"]?.stringValue ?? "?"
        let subject = delivery.document["locale"]?.stringValue.map { " \($0)" } ?? ""
        let line =
            "warning: notification \(event)\(subject) to hook \(delivery.hook) not delivered (\(error)); queued: rollout notify retry"
        return line.oneLine + "\n"
    }

    /// One delivery per hook that hears the notice.
    static func deliveries(for notice: Notice, policy: NotifyPolicy) -> [Delivery] {
        let report = policy.reportLink(locale: notice.locale, commit: notice.commit?.hex, event: notice.event)
        let document = notice.document(report: report)
        return policy.hooks.filter { $0.hears(notice.event) }.map {
            Delivery(
                hook: $0.name, deliveryID: NotifyBodies.deliveryID(hook: $0.name, document: document),
                document: document)
        }
    }

    /// Sends `deliveries` at once and records the outcome: a delivered one leaves the queue, a
    /// failed one is (re)queued with its error and one more attempt. `record: false` (a test
    /// message) queues nothing.
    static func deliver(
        _ deliveries: [Delivery], policy: NotifyPolicy, queue: NotifyQueue, context: CommandContext,
        record: Bool = true
    ) -> [Sent] {
        let now = (try? context.now()) ?? context.systemClock()
        var requests: [WebhookWire.Request] = []
        var errors: [String: String] = [:]
        for delivery in deliveries {
            do {
                guard let hook = policy.hook(named: delivery.hook) else { throw Failure("no hook of that name") }
                let url = try text(of: hook.url, context: context)
                let secret = try hook.secret.map { Array(try value(of: $0, context: context).utf8) }
                let (headers, body) = NotifyBodies.request(
                    format: hook.format, document: delivery.document, deliveryID: delivery.deliveryID, sentAt: now,
                    secret: secret)
                requests.append(WebhookWire.Request(id: delivery.deliveryID, url: url, headers: headers, body: body))
            } catch {
                errors[delivery.deliveryID] = (error as? Failure)?.message ?? Refusals.message(of: error)
            }
        }
        let results = WebhookHelper.post(requests, timeoutSeconds: policy.timeoutSeconds, context: context)
        return deliveries.map { delivery in
            let id = delivery.deliveryID
            var error: String? = errors[id] ?? "no answer from \(DeviceHelper.programName)"
            if errors[id] == nil, let result = results[id] { error = result.error }
            if record { self.record(delivery, error: error, queue: queue, now: now, context: context) }
            return Sent(delivery: delivery, error: error)
        }
    }

    private static func record(
        _ delivery: Delivery, error: String?, queue: NotifyQueue, now: Timestamp, context: CommandContext
    ) {
        guard let error else {
            if delivery.queued != nil { queue.remove(delivery.deliveryID) }
            return
        }
        let entry = NotifyQueue.Entry(
            hook: delivery.hook, deliveryID: delivery.deliveryID, document: delivery.document,
            attempts: (delivery.queued?.attempts ?? 0) + 1, lastError: error,
            firstTried: delivery.queued?.firstTried ?? now, lastTried: now)
        do {
            try queue.save(entry)
        } catch {
            context.diagnostics("warning: could not queue a notification: \(Refusals.message(of: error).oneLine)\n")
        }
    }

    /// A hook's URL: the policy's, or read from where it says.
    static func text(of url: NotifyPolicy.URLSpelling, context: CommandContext) throws -> String {
        switch url {
        case .literal(let text): return text
        case .from(let source):
            let text = try value(of: source, context: context)
            try NotifyPolicy.checkURL(text, field: describe(source))
            return text
        }
    }

    /// A secret's (or secret URL's) value; a missing one is this delivery's failure.
    static func value(of source: NotifyPolicy.Source, context: CommandContext) throws -> String {
        switch source {
        case .environment(let name):
            guard let value = context.environment[name], !value.isEmpty else {
                throw Failure("the environment variable \(name) is not set")
            }
            return value
        case .file(let path):
            let bytes = try LocalFile.read(path, name: path, describedAs: "secret file")
            var text = String(decoding: bytes, as: UTF8.self)
            while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
            guard !text.isEmpty else { throw Failure("\(path) is empty") }
            return text
        }
    }

    static func describe(_ source: NotifyPolicy.Source) -> String {
        switch source {
        case .environment(let name): return "$\(name)"
        case .file(let path): return path
        }
    }

    struct Failure: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }
}

/// Starts rollout-device to post the requests (`WebhookWire`), and waits for it at most the
/// time-out and `Notifier.helperGrace`; a helper still running then is killed, and its requests
/// count as timed out.
enum WebhookHelper {
    static func post(_ requests: [WebhookWire.Request], timeoutSeconds: Int, context: CommandContext)
        -> [String: WebhookWire.Result]
    {
        guard !requests.isEmpty else { return [:] }
        func all(_ error: String) -> [String: WebhookWire.Result] {
            Dictionary(
                uniqueKeysWithValues: requests.map { ($0.id, WebhookWire.Result(id: $0.id, status: nil, error: error)) }
            )
        }
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let places = DeviceHelper.candidates(executable: executable)
        guard let helper = places.first(where: { access($0, X_OK) == 0 }) else {
            return all(
                "\(DeviceHelper.programName), which posts webhooks, is not at \(places.joined(separator: " nor "))")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rollout-notify-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let input = scratch.appendingPathComponent("requests.json")
            let output = scratch.appendingPathComponent("results.json")
            try Data(WebhookWire.document(requests, timeoutSeconds: timeoutSeconds)).write(to: input)
            FileManager.default.createFile(atPath: output.path, contents: nil)
            let finished = try run(
                helper, input: input, output: output, context: context,
                deadline: Double(timeoutSeconds) + Notifier.helperGrace)
            guard finished else { return all("timed out after \(timeoutSeconds) s") }
            let results = WebhookWire.results(from: [UInt8](try Data(contentsOf: output)))
            return results.isEmpty ? all("\(DeviceHelper.programName) gave no results") : results
        } catch {
            return all("cannot run \(helper): \(error.localizedDescription)")
        }
    }

    /// Runs the helper on `input`, its stdout into `output`; false when it was still running at
    /// `deadline` seconds (then it is killed).
    private static func run(_ helper: String, input: URL, output: URL, context: CommandContext, deadline: Double)
        throws -> Bool
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: helper)
        process.arguments = [WebhookWire.helperWord]
        process.environment = context.environment
        process.currentDirectoryURL = URL(fileURLWithPath: context.workingDirectory)
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        if done.wait(timeout: .now() + deadline) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            done.wait()
            return false
        }
        return true
    }
}
