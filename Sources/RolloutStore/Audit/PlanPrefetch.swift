import Foundation
import RolloutModel

/// The plans of the lines a whole-history query reads next, read and parsed on another thread with a
/// repository handle of its own while the query works on the lines before them (docs/audit.md, "A
/// fresh clone"). It only saves time: a plan it could not read is read again by the query, which
/// then reports it as it always does.
final class PlanPrefetch: @unchecked Sendable {
    private let queue = DispatchQueue(label: "rollout.log.plans")
    private let path: String
    private let strictOnly: Bool
    /// Opened and used on `queue` only.
    private var git: GitRepository?

    init(path: String, strictOnly: Bool) {
        self.path = path
        self.strictOnly = strictOnly
    }

    /// Starts reading the plans `lines` name; `Ticket.plans()` waits for them.
    func start(_ lines: [IndexLineFields?]) -> Ticket {
        let ticket = Ticket()
        let blobs = lines.flatMap { fields in
            fields?.plans.flatMap { [$0.after] + ($0.before.map { [$0] } ?? []) } ?? []
        }
        queue.async { [self] in
            var plans: [String: Plan] = [:]
            if git == nil { git = try? GitRepository.openBare(path) }
            for blob in blobs where plans[blob] == nil {
                guard let id = ObjectID(hex: blob), let bytes = try? git?.readBlob(id),
                    let plan = AuditPlanReader.plan(bytes, blob: blob, strictOnly: strictOnly)
                else { continue }
                plans[blob] = plan
            }
            ticket.fulfil(plans)
        }
        return ticket
    }

    /// The plans one `start` reads, handed over once they are all read.
    final class Ticket: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var read: [String: Plan] = [:]

        fileprivate func fulfil(_ plans: [String: Plan]) {
            read = plans
            done.signal()
        }

        /// Waits for the plans (the semaphore orders the write before this read); each ticket is
        /// waited for once.
        func plans() -> [String: Plan] {
            done.wait()
            return read
        }
    }
}
