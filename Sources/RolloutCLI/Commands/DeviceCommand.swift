import RolloutModel

/// `rollout device`: the real client library as one device, from a shell (docs/device.md). Parses
/// the device and the action, runs the action on a `RolloutClient`, renders what it returned.
package enum DeviceCommand {
    package struct Options: PublishCommands.TrustOptions {
        package let state = Option<Path>(
            "state", "DIR", "the device's cache directory, created if missing; reuse it to keep the same device"
        ).required()
        package let site = Option<String>(
            "site", "URL|DIR", "the published site: a directory, or the URL of the site or of its index.json",
            completion: .files
        ) { text, _ in text }.required()
        package let publicKey = Option<Path>(
            "public-key", "KEY",
            "the one key the app pins: ed25519:BASE64, as rollout keys generate printed it, or a file holding it"
        ).oneOf("trust")
        package let rootKey = Option<Path>(
            "root-key", "KEY", "a root key the app builds in, as rollout keys init printed it, or a file holding it",
            repeatable: true
        ).oneOf("trust")
        package let threshold = Option.count(
            "threshold", "N", "how many of the --root-key keys must sign a key list (default 1)", minimum: 1)
        package let minSequence = Option.count(
            "min-sequence", "N", "the oldest index sequence the app accepts, even on a fresh install (default 0)",
            minimum: 0)
        package let minKeysVersion = Option.count(
            "min-keys-version", "N",
            "with --root-key: the oldest key list version the app accepts, even on a fresh install (default 0)",
            minimum: 0)
        package let bundled = Option<Path>(
            "bundled", "DIR", "the app's bundled strings: LOCALE.json files (key to string) or *.lproj folders")
        package let locale = Option<LocaleTag>("locale", "L", "the device's locale, for example tr-TR").required()
        /// Read by `DeviceSetup`, which names the option in the region's refusal as the Android device does.
        package let region = Option<String>("region", "R", "the device's ISO 3166-1 region, for example TR").required()
        package let appVersion = Option<AppVersion>(
            "app-version", "V", "the app's marketing version, for example 4.8.1"
        ).required()
        package let installID = Option<String>(
            "install-id", "ID",
            "the id that places the device in percent rollouts (default: a random one kept in --state)")
        package let force = Flag("force", "refresh: ignore the minimum interval between refreshes")
        package let arg = Option<String>("arg", "NAME=VALUE", "get: a placeholder's value", repeatable: true)

        package init() {}

        package static let declared = Options()
    }

    package static let spec = CommandSpec(
        path: ["device"],
        summary: "run the client library as one device against a published site: what a user in TR on 4.8.1 sees",
        discussion: """
            ACTION is one of:
              refresh [--force]        fetch and verify the site, stage the packs this device resolves to
              activate                 make the staged packs active (the app does it at a safe moment)
              get KEY [--arg N=V]...   the text the app shows for KEY
              launch                   a process start: a staged pack becomes active; a pack that missed
                                       launch-succeeded in too many launches in a row is rolled back
              launch-succeeded         the app's first screen is usable
              status                   active, pending, previous, failed and blocked packs, and the counters
              metrics crash|fallback   the counters as the CSV rollout metrics ingest reads
              metrics outcome          the exposures and conversions of the experiment, as that CSV
                                       (outcome-METRIC: one metric's rows)
              convert NAME             a conversion the app observed in this session (NAME: a metric of
                                       the experiment the device is in)
            The state directory is the device: the same --state DIR across invocations is the same phone
            across launches; the session a launch opens goes on until the next launch. --site takes the directory rollout publish wrote, or its https:// URL (http://
            only on loopback). --public-key plays an app that pins one key; --root-key one built with the root
            keys of the site's key list (docs/keys.md). Exit 1 when a refresh failed; the device keeps what
            it had. See docs/device.md.
            """,
        options: Options.self,
        arguments: CommandSpec.Arguments(names: ["ACTION", "ARGUMENT"], minimum: 1, maximum: 2, afterOptions: true),
        // rollout hands the words to the rollout-device program (DeviceHelper), where RolloutDevice
        // gives this command its work: rollout itself links no HTTP client.
        effects: [.readsFiles, .writesFiles, .checks],
        run: { invocation, context in try DeviceHelper.handOver(invocation, context: context) })
}

/// What `rollout device` is asked to do, checked before the device starts.
package enum DeviceAction: Equatable {
    case refresh(force: Bool)
    case activate
    case get(key: String, arguments: [String: String])
    case launch
    case launchSucceeded
    case status
    case metrics(MetricKind)
    /// Every metric's exposures and conversions: the outcome CSV.
    case outcomes
    case convert(metric: String)

    static let names = [
        "refresh", "activate", "get", "launch", "launch-succeeded", "status", "metrics", "convert",
    ]

    package static func parse(_ invocation: Invocation) throws -> DeviceAction {
        let name = invocation.positionals[0]
        let argument = invocation.positionals.count > 1 ? invocation.positionals[1] : nil
        let options = DeviceCommand.Options.declared
        if invocation.flag(options.force), name != "refresh" {
            throw RolloutError.usage("--force goes with rollout device refresh, not \(name)")
        }
        if invocation.given(options.arg), name != "get" {
            throw RolloutError.usage("--arg goes with rollout device get KEY, not \(name)")
        }
        let action: DeviceAction
        switch name {
        case "refresh": action = .refresh(force: invocation.flag(options.force))
        case "activate": action = .activate
        case "launch": action = .launch
        case "launch-succeeded": action = .launchSucceeded
        case "status": action = .status
        case "get":
            guard let key = argument else {
                throw RolloutError.usage(
                    "rollout device get needs KEY; usage: rollout device ... get KEY [--arg NAME=VALUE]...")
            }
            return .get(key: key, arguments: try arguments(invocation.texts(options.arg)))
        case "metrics":
            if argument == "outcome" { return .outcomes }
            guard let kind = argument.flatMap(MetricKind.init(rawValue:)) else {
                let given = argument.map { " \"\($0)\"" } ?? ""
                throw RolloutError.usage(
                    "rollout device metrics needs crash, fallback or outcome\(given.isEmpty ? "" : ", not" + given)")
            }
            return .metrics(kind)
        case "convert":
            guard let metric = argument, Plan.Experiment.isValidMetric(metric) else {
                let given = argument.map { "; \"\($0)\" is not one" } ?? ""
                throw RolloutError.usage(
                    "rollout device convert needs a metric NAME (lowercase letters, digits and _)\(given)")
            }
            return .convert(metric: metric)
        default:
            throw RolloutError.usage(
                "unknown device action \"\(name)\"" + suggestion(name, among: Set(names))
                    + "; choose \(names.joined(separator: ", "))")
        }
        if let argument { throw RolloutError.usage("rollout device \(name) takes no argument, got \"\(argument)\"") }
        return action
    }

    /// `--arg NAME=VALUE`, each name once; the value may hold `=` and may be empty.
    static func arguments(_ values: [String]) throws -> [String: String] {
        var result: [String: String] = [:]
        for value in values {
            guard let equals = value.firstIndex(of: "="), equals != value.startIndex else {
                throw RolloutError.usage("--arg \"\(value)\" is not NAME=VALUE, for example --arg name=Ayşe")
            }
            let name = String(value[..<equals])
            guard result[name] == nil else { throw RolloutError.usage("--arg \(name) is given twice") }
            result[name] = String(value[value.index(after: equals)...])
        }
        return result
    }
}
