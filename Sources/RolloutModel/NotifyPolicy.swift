/// The policy's `notify` section (docs/notifications.md): the webhooks the command whose change
/// landed tells. It lives in the policy so that it is reviewed, recorded and shared like every other
/// rule of the repository; what must stay secret (a signing secret, a Slack URL, which is itself a
/// credential) is named here by where it comes from, an environment variable or a file, never held.
public struct NotifyPolicy: Equatable, Sendable {
    /// What a hook can be told, by the command that noticed it.
    public enum Event: String, CaseIterable, Sendable {
        /// `promote`: a pack staged to a share, or a ramp started.
        case promote
        /// `promote --to 100%`, or a ramp's last step: a pack became the baseline.
        case complete
        /// `revert`, by hand or by `guard --auto-revert`.
        case revert
        /// `guard` took a scheduled ramp's next step.
        case ramp
        /// `experiment start` and `experiment stop`: an experiment began or ended (by hand, shipping a
        /// variant, or by a revert); guard's stop for harm is a `revert`.
        case experiment
        /// `guard` held a rollout: not enough data for a ramp step, no fresh metrics, a paused ramp.
        case hold
        /// `guard` found that a segment's devices do not get the planned share.
        case sampleRatioMismatch = "sample-ratio-mismatch"
        /// `publish` wrote the site.
        case publish
        /// `publish` or `guard`: a publishing key expires within `keyExpiryDays`.
        case keyExpiring = "key-expiring"
    }

    /// The body a hook receives: Slack's incoming-webhook shape, or rollout's own JSON document.
    public enum Format: String, CaseIterable, Sendable {
        case slack
        case json
    }

    /// Where a value that must stay out of the repository comes from.
    public enum Source: Equatable, Sendable {
        /// The environment variable of this name, in the environment of the command that sends.
        case environment(String)
        /// The whole file at this absolute path, without a trailing newline.
        case file(String)
    }

    public struct Hook: Equatable, Sendable {
        /// How `notify test HOOK` and `notify status` name it: lowercase letters, digits and `-`.
        public var name: String
        /// The URL itself (`url`), or where to read it (`urlEnv`, `urlFile`): a Slack URL is a credential.
        public var url: URLSpelling
        public var format: Format
        public var events: [Event]
        /// The HMAC-SHA256 key of `X-Rollout-Signature-256`. Required for `json`, optional for `slack`.
        public var secret: Source?

        public init(name: String, url: URLSpelling, format: Format, events: [Event], secret: Source?) {
            self.name = name
            self.url = url
            self.format = format
            self.events = events
            self.secret = secret
        }

        public func hears(_ event: Event) -> Bool { events.contains(event) }
    }

    /// A hook's URL as the policy spells it.
    public enum URLSpelling: Equatable, Sendable {
        case literal(String)
        case from(Source)
    }

    public var hooks: [Hook]
    /// How long one delivery may take, connecting included; a revert waits at most this long after
    /// its commit landed.
    public var timeoutSeconds: Int
    /// A link to the report each body carries: `{locale}`, `{commit}` and `{event}` are filled in.
    public var reportURL: String?
    /// How close to its expiry a publishing key is announced (`key-expiring`).
    public var keyExpiryDays: Int

    public static let defaultTimeoutSeconds = 5
    public static let timeoutRange = 1...60
    public static let defaultKeyExpiryDays = 14
    /// How many hooks a policy may name: each is one request of every command that sends.
    public static let maximumHooks = 20
    public static let none = NotifyPolicy(
        hooks: [], timeoutSeconds: defaultTimeoutSeconds, reportURL: nil, keyExpiryDays: defaultKeyExpiryDays)

    public init(hooks: [Hook], timeoutSeconds: Int, reportURL: String?, keyExpiryDays: Int) {
        self.hooks = hooks
        self.timeoutSeconds = timeoutSeconds
        self.reportURL = reportURL
        self.keyExpiryDays = keyExpiryDays
    }

    public func hook(named name: String) -> Hook? { hooks.first { $0.name == name } }

    /// The report link for one event, when `reportURL` is set.
    public func reportLink(locale: String?, commit: String?, event: Event) -> String? {
        reportURL.map {
            $0.replacingEvery("{locale}", with: locale ?? "").replacingEvery("{commit}", with: commit ?? "")
                .replacingEvery("{event}", with: event.rawValue)
        }
    }
}

extension NotifyPolicy {
    static func parse(_ value: JSONValue, source: String) throws -> NotifyPolicy {
        var reader = try ObjectReader(value, path: source)
        var policy = NotifyPolicy.none
        policy.timeoutSeconds = try reader.integer(
            "timeoutSeconds", default: defaultTimeoutSeconds, range: timeoutRange)
        policy.keyExpiryDays = try reader.integer("keyExpiryDays", default: defaultKeyExpiryDays, range: 1...365)
        if let template = try reader.optionalString("reportURL") {
            try checkURL(template, field: "\(source).reportURL")
            if let unknown = placeholders(in: template).first(where: { !["locale", "commit", "event"].contains($0) }) {
                throw RolloutError.badInput(
                    "\(source).reportURL: unknown placeholder {\(unknown)} (known: {locale}, {commit}, {event})")
            }
            policy.reportURL = template
        }
        guard let hooks = try reader.array("hooks") else {
            throw RolloutError.badInput("\(source).hooks: missing; list at least one hook, or leave notify out")
        }
        guard (1...maximumHooks).contains(hooks.count) else {
            throw RolloutError.badInput("\(source).hooks: must list 1 to \(maximumHooks) hooks, found \(hooks.count)")
        }
        for (index, hook) in hooks.enumerated() {
            let parsed = try Hook.parse(hook, source: "\(source).hooks[\(index)]")
            if policy.hooks.contains(where: { $0.name == parsed.name }) {
                throw RolloutError.badInput("\(source).hooks[\(index)].name: \"\(parsed.name)\" names two hooks")
            }
            policy.hooks.append(parsed)
        }
        try reader.finish()
        return policy
    }

    var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "timeoutSeconds": .integer(timeoutSeconds), "keyExpiryDays": .integer(keyExpiryDays),
            "hooks": .array(hooks.map(\.jsonValue)),
        ]
        if let reportURL { object["reportURL"] = .string(reportURL) }
        return .object(object)
    }

    /// `https://...`, or `http://` to this machine only (a receiver on loopback, a local relay): a
    /// webhook carries what devices get and who changed it, never in clear text over a network.
    public static func checkURL(_ text: String, field: String) throws {
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            rest = text.dropFirst("https://".count)
        } else if lower.hasPrefix("http://") {
            rest = text.dropFirst("http://".count)
            let host = hostPart(rest).lowercased()
            guard ["127.0.0.1", "localhost", "[::1]"].contains(host) else {
                throw RolloutError.badInput(
                    "\(field): http:// is allowed only to this machine (127.0.0.1, localhost, [::1]); use https:// for \(host)"
                )
            }
        } else {
            throw RolloutError.badInput("\(field): \"\(text)\" is not an https:// URL")
        }
        if text.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7f } == true }) {
            throw RolloutError.badInput("\(field): a URL cannot contain spaces or control characters")
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if authority.contains("@") {
            throw RolloutError.badInput(
                "\(field): the URL carries a user name or password; the repository holds no credential: use urlEnv or urlFile"
            )
        }
        if hostPart(rest).isEmpty { throw RolloutError.badInput("\(field): the URL has no host") }
    }

    /// The host of `rest` (what follows `scheme://`), without a port.
    private static func hostPart(_ rest: Substring) -> String {
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@").last ?? ""
        if hostAndPort.hasPrefix("[") { return String(hostAndPort.prefix { $0 != "]" }) + "]" }
        return String(hostAndPort.prefix { $0 != ":" })
    }

    /// The `{name}`s of a template.
    static func placeholders(in template: String) -> [String] {
        var names: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else { break }
            names.append(String(after[..<close]))
            rest = after[after.index(after: close)...]
        }
        return names
    }
}

extension NotifyPolicy.Hook {
    static func parse(_ value: JSONValue, source: String) throws -> NotifyPolicy.Hook {
        var reader = try ObjectReader(value, path: source)
        let name = try reader.optionalString("name") ?? ""
        guard !name.isEmpty, name.count <= 40,
            name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" })
        else {
            throw RolloutError.badInput(
                "\(source).name: \(name.isEmpty ? "missing" : "\"\(name)\"") must be 1 to 40 of a-z, 0-9 and -, such as release-channel"
            )
        }
        let url = try urlSpelling(&reader, source: source)
        let formatName = try reader.optionalString("format") ?? ""
        guard let format = NotifyPolicy.Format(rawValue: formatName) else {
            throw RolloutError.badInput(
                "\(source).format: \(formatName.isEmpty ? "missing" : "\"\(formatName)\"") must be slack or json")
        }
        let events = try reader.stringArray("events", default: NotifyPolicy.Event.allCases.map(\.rawValue))
        guard !events.isEmpty else {
            throw RolloutError.badInput("\(source).events: empty; leave it out to hear every event")
        }
        let known = NotifyPolicy.Event.allCases.map(\.rawValue).joined(separator: ", ")
        let parsed = try events.map { name in
            guard let event = NotifyPolicy.Event(rawValue: name) else {
                throw RolloutError.badInput("\(source).events: unknown event \"\(name)\" (known: \(known))")
            }
            return event
        }
        let secret = try origin(&reader, environment: "secretEnv", file: "secretFile", field: source)
        if secret == nil, format == .json {
            throw RolloutError.badInput(
                "\(source).secretEnv: a json hook is signed: name the environment variable (secretEnv) or file (secretFile) that holds its secret"
            )
        }
        try reader.finish()
        return NotifyPolicy.Hook(
            name: name, url: url, format: format, events: NotifyPolicy.Event.allCases.filter(parsed.contains),
            secret: secret)
    }

    private static func urlSpelling(_ reader: inout ObjectReader, source: String) throws -> NotifyPolicy.URLSpelling {
        let literal = try reader.optionalString("url")
        let indirect = try origin(&reader, environment: "urlEnv", file: "urlFile", field: source)
        switch (literal, indirect) {
        case (.some, .some):
            throw RolloutError.badInput("\(source).url: give url, urlEnv or urlFile, not several")
        case (.some(let url), nil):
            try NotifyPolicy.checkURL(url, field: "\(source).url")
            return .literal(url)
        case (nil, .some(let from)):
            return .from(from)
        case (nil, nil):
            throw RolloutError.badInput("\(source).url: missing; give url, or urlEnv or urlFile for a secret URL")
        }
    }

    /// One of `environment` (a variable's name) or `file` (an absolute path), or neither.
    private static func origin(_ reader: inout ObjectReader, environment: String, file: String, field: String) throws
        -> NotifyPolicy.Source?
    {
        let variable = try reader.optionalString(environment)
        let path = try reader.optionalString(file)
        switch (variable, path) {
        case (.some, .some):
            throw RolloutError.badInput("\(field).\(environment): give \(environment) or \(file), not both")
        case (.some(let name), nil):
            let first = name.unicodeScalars.first
            guard let first, first == "_" || ("A"..."Z").contains(first) || ("a"..."z").contains(first),
                name.unicodeScalars.allSatisfy({
                    $0 == "_" || ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0)
                })
            else {
                throw RolloutError.badInput(
                    "\(field).\(environment): \"\(name)\" is not an environment variable name such as ROLLOUT_HOOK_SECRET; the value itself never goes in the policy"
                )
            }
            return .environment(name)
        case (nil, .some(let path)):
            guard path.hasPrefix("/") else {
                throw RolloutError.badInput(
                    "\(field).\(file): \"\(path)\" is not an absolute path; cron and CI run from other directories")
            }
            return .file(path)
        case (nil, nil):
            return nil
        }
    }

    var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "name": .string(name), "format": .string(format.rawValue),
            "events": .array(events.map { .string($0.rawValue) }),
        ]
        switch url {
        case .literal(let text): object["url"] = .string(text)
        case .from(.environment(let name)): object["urlEnv"] = .string(name)
        case .from(.file(let path)): object["urlFile"] = .string(path)
        }
        switch secret {
        case .environment(let name): object["secretEnv"] = .string(name)
        case .file(let path): object["secretFile"] = .string(path)
        case nil: break
        }
        return .object(object)
    }
}

extension String {
    fileprivate func replacingEvery(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
