import RolloutModel
import RolloutStore

/// `rollout notify test`, `status` and `retry` (docs/notifications.md): the webhooks of the policy's
/// `notify` section and the queue of deliveries that failed. The sending is `Notifier`'s.
enum NotifyCommands {
    static let test = CommandSpec(
        path: ["notify", "test"], summary: "send a sample notification to every hook, or to HOOK",
        discussion: """
            The sample is an event "test" with the tip's commit and, when a locale is promoted, the
            segment table of the first one, signed as every delivery is. It is not queued when it
            fails. Exit 1 when a hook did not answer with a 2xx status within the policy's timeoutSeconds.
            """,
        options: NoOptions.self, arguments: .optional("HOOK"), effects: [.readsRepository, .checks],
        run: { invocation, context in
            let repository = try context.repository(invocation)
            let snapshot = try repository.snapshot()
            let policy = try snapshot.policy().notify
            let hooks = try chosenHooks(invocation.positionals.first, policy: policy)
            let now = try context.now()
            let actor = try context.actor(invocation, repository: repository)
            var notice = Notice(
                event: .promote, title: "rollout notify test: a sample notification from \(actor.description)",
                locale: nil, pack: nil, commit: snapshot.commit, actor: actor.description, time: now,
                reason: nil)
            if let locale = try snapshot.plannedLocales().first, let plan = try snapshot.plan(locale) {
                notice.locale = locale
                notice.segments = Notice.segments(of: plan)
            }
            var document = notice.document(
                report: policy.reportLink(locale: notice.locale, commit: notice.commit?.hex, event: .promote))
            document["event"] = "test"
            let deliveries = hooks.map {
                Notifier.Delivery(
                    hook: $0.name, deliveryID: NotifyBodies.deliveryID(hook: $0.name, document: document),
                    document: document)
            }
            let sent = Notifier.deliver(
                deliveries, policy: policy, queue: NotifyQueue(repository: repository), context: context, record: false)
            return render(sent, style: context.style(invocation), empty: "")
        })

    static let status = CommandSpec(
        path: ["notify", "status"], summary: "the hooks of the policy, and the deliveries queued after a failure",
        discussion: """
            HOOK, FORMAT, EVENTS, URL (a URL read from the environment or a file is named by where it
            comes from, never shown) and SECRET (whether it can be read here), then the queue: each
            delivery's hook, event, attempts and last error. rollout notify retry sends the queue again.
            """,
        options: NoOptions.self, arguments: .none, effects: .readsRepository,
        run: { invocation, context in
            let repository = try context.repository(invocation)
            let policy = try repository.snapshot().policy().notify
            let style = context.style(invocation)
            var hooks = Table("HOOK", "FORMAT", "EVENTS", "URL", "SECRET")
            for hook in policy.hooks {
                hooks.add(
                    hook.name, hook.format.rawValue,
                    hook.events.count == NotifyPolicy.Event.allCases.count
                        ? "all" : hook.events.map(\.rawValue).joined(separator: ","),
                    describe(hook.url), secretState(hook, context: context))
            }
            let queued = NotifyQueue(repository: repository).entries()
            var queue = Table("DELIVERY", "HOOK", "EVENT", "ATTEMPTS", "LAST ERROR")
            for entry in queued {
                queue.add(
                    String(entry.deliveryID.prefix(12)), entry.hook, event(of: entry.document), "\(entry.attempts)",
                    cell(entry.lastError, width: 50))
            }
            var text = policy.hooks.isEmpty ? "No hooks: the policy has no notify section.\n" : hooks.render(style)
            text += queued.isEmpty ? "Nothing queued.\n" : "Queued:\n" + queue.render(style)
            return CommandOutput(
                json: [
                    "hooks": .array(policy.hooks.map { hookJSON($0, context: context) }),
                    "queue": .array(queued.map(\.jsonValue)),
                ], text: text)
        })

    static let retry = CommandSpec(
        path: ["notify", "retry"], summary: "send every queued notification again",
        discussion: """
            Each queued delivery goes to its hook again, signed anew with the same delivery id; a
            delivered one leaves the queue, a failed one stays with one more attempt. The commands that
            send try the queue too, up to 5 attempts a delivery; this tries every one. Exit 1 when one
            is still queued.
            """,
        options: NoOptions.self, arguments: .none, effects: [.readsRepository, .checks],
        run: { invocation, context in
            let repository = try context.repository(invocation)
            let policy = try repository.snapshot().policy().notify
            let queue = NotifyQueue(repository: repository)
            let deliveries = queue.entries().map {
                Notifier.Delivery(hook: $0.hook, deliveryID: $0.deliveryID, document: $0.document, queued: $0)
            }
            let sent = Notifier.deliver(deliveries, policy: policy, queue: queue, context: context)
            return render(sent, style: context.style(invocation), empty: "Nothing queued.\n")
        })

    /// HOOK, or every hook; a usage error when there is none or HOOK is not one.
    static func chosenHooks(_ name: String?, policy: NotifyPolicy) throws -> [NotifyPolicy.Hook] {
        guard !policy.hooks.isEmpty else {
            throw RolloutError.missing("the policy has no notify hooks; add a notify section (docs/notifications.md)")
        }
        guard let name else { return policy.hooks }
        guard let hook = policy.hook(named: name) else {
            throw RolloutError.usage(
                "no hook \(name) in the policy; hooks: \(policy.hooks.map(\.name).joined(separator: ", "))")
        }
        return [hook]
    }

    /// One row per delivery: its hook, event and result; exit 1 when one failed.
    static func render(_ sent: [Notifier.Sent], style: Style, empty: String) -> CommandOutput {
        var table = Table("HOOK", "EVENT", "DELIVERY", "RESULT")
        for item in sent {
            table.add(
                item.delivery.hook, event(of: item.delivery.document), String(item.delivery.deliveryID.prefix(12)),
                item.error.map { "failed: \($0)" } ?? "delivered")
        }
        let failed = sent.contains { $0.error != nil }
        let json: JSONValue = [
            "deliveries": .array(
                sent.map {
                    [
                        "hook": .string($0.delivery.hook), "event": .string(event(of: $0.delivery.document)),
                        "deliveryId": .string($0.delivery.deliveryID), "delivered": .bool($0.error == nil),
                        "error": $0.error.map { .string($0) } ?? .null,
                    ]
                })
        ]
        return CommandOutput(json: json, text: sent.isEmpty ? empty : table.render(style), exitCode: failed ? 1 : 0)
    }

    static func event(of document: [String: JSONValue]) -> String {
        (document["event"]?.stringValue ?? "?") + (document["locale"]?.stringValue.map { " \($0)" } ?? "")
    }

    static func describe(_ url: NotifyPolicy.URLSpelling) -> String {
        switch url {
        case .literal(let text): return RemoteURL.redacted(text)
        case .from(let source): return "from " + Notifier.describe(source)
        }
    }

    static func secretState(_ hook: NotifyPolicy.Hook, context: CommandContext) -> String {
        guard let source = hook.secret else { return "none" }
        let readable = (try? Notifier.value(of: source, context: context)) != nil
        return Notifier.describe(source) + (readable ? "" : " (missing here)")
    }

    static func hookJSON(_ hook: NotifyPolicy.Hook, context: CommandContext) -> JSONValue {
        [
            "name": .string(hook.name), "format": .string(hook.format.rawValue),
            "events": .array(hook.events.map { .string($0.rawValue) }), "url": .string(describe(hook.url)),
            "secret": .string(secretState(hook, context: context)),
        ]
    }
}
