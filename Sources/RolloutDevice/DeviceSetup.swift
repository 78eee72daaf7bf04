import Foundation
import RolloutCLI
import RolloutClient
import RolloutCrypto
import RolloutModel

/// The device `rollout device` plays, from its flags: checked here so that a typo is a usage error
/// naming the flag, never a device that quietly matches nothing.
struct DeviceSetup {
    /// What the app builds in to check the site: one pinned key, or root keys (docs/client.md,
    /// "Keys and expiry").
    enum Keys: Equatable {
        case pinned(String)
        case roots(RolloutClient.Trust)
    }

    let stateDirectory: URL
    let manifestURL: URL
    let keys: Keys
    let minimumIndexSequence: Int
    let bundledDirectory: URL?
    let locale: String
    let region: String
    let appVersion: String
    let installID: String?
    let now: Date

    static func parse(_ invocation: Invocation, context: CommandContext) throws -> DeviceSetup {
        let options = DeviceCommand.Options.declared
        let stateText = try invocation.required(options.state).text
        let state = context.absolutePath(stateText)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: state, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw RolloutError.usage(
                "--state \(stateText) is a file; give the device's directory (created if missing)")
        }
        let manifestURL = try site(try invocation.required(options.site), context: context)
        let keys = try self.keys(invocation, context: context)
        let minimum = try invocation.value(options.minSequence)
        let bundled = try invocation.value(options.bundled).map { bundled -> URL in
            let text = bundled.text
            let path = context.absolutePath(text)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw RolloutError.missing("--bundled \(text): no such directory")
            }
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        let locale = try invocation.required(options.locale).description
        let regionText = try invocation.required(options.region)
        let region: String
        do {
            region = try Region.parse(regionText)
        } catch let error as RolloutError {
            throw RolloutError.usage("--region: \(error.message)")
        }
        guard region != Region.any else { throw RolloutError.usage("--region names the device's own region, not *") }
        let appVersion = try invocation.required(options.appVersion).description
        return DeviceSetup(
            stateDirectory: URL(fileURLWithPath: state, isDirectory: true), manifestURL: manifestURL,
            keys: keys, minimumIndexSequence: minimum ?? 0, bundledDirectory: bundled, locale: locale, region: region,
            appVersion: appVersion,
            installID: invocation.value(options.installID),
            now: Date(timeIntervalSince1970: TimeInterval(try context.now().seconds)))
    }

    /// `--public-key KEY` (an app that pins one key) or `--root-key KEY...` with `--threshold N` and
    /// `--min-keys-version N` (an app that trusts the site's key list), read as verify-site reads them.
    static func keys(_ invocation: Invocation, context: CommandContext) throws -> Keys {
        let options = DeviceCommand.Options.declared
        if !invocation.given(options.publicKey), !invocation.given(options.rootKey) {
            throw .deviceNeedsKey
        }
        let minimumKeysVersion = try invocation.value(options.minKeysVersion)
        switch try PublishCommands.siteTrust(invocation, options, context: context) {
        case .pinned(let key):
            if minimumKeysVersion != nil {
                throw RolloutError.usage(
                    "--min-keys-version goes with --root-key: an app that pins one key reads no key list")
            }
            return .pinned(key.description)
        case .roots(let roots):
            return .roots(
                RolloutClient.Trust(
                    rootKeys: roots.ids.compactMap { roots.keys[$0]?.description }, threshold: roots.threshold,
                    minimumKeysVersion: minimumKeysVersion ?? 0))
        }
    }

    /// A directory is served through `file:` URLs; a URL names the site's directory or its
    /// `index.json`. The client's default transport reads both, and the client decides which URLs
    /// it accepts (docs/client.md): an `http:` URL to another host fails the refresh, with its reason.
    static func site(_ text: String, context: CommandContext) throws -> URL {
        if let scheme = text.range(of: "://").map({ text[..<$0.lowerBound].lowercased() }) {
            guard ["https", "http", "file"].contains(scheme), let url = URL(string: text),
                url.host != nil || scheme == "file"
            else {
                throw RolloutError.usage("--site \(text) is not an https:// URL or a directory")
            }
            let index = url.pathExtension == "json" ? url : url.appendingPathComponent("index.json")
            return index
        }
        let path = context.absolutePath(text)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw RolloutError.missing(
                "--site \(text): no such directory; give the directory rollout publish --out wrote, or the site's URL")
        }
        let directory = URL(fileURLWithPath: path, isDirectory: isDirectory.boolValue)
        return isDirectory.boolValue ? directory.appendingPathComponent("index.json") : directory
    }

    /// The device, started: with `countsLaunch` only for `launch`, so that looking at a device
    /// (get, status) is not a process start that could roll a pack back. Also returns what could
    /// not be read of the bundled strings (the device runs without those texts, as the app would).
    func client(countsLaunch: Bool) -> (RolloutClient, [String]) {
        var options = RolloutClient.Options()
        options.installID = installID
        options.countsLaunch = countsLaunch
        // One phone across invocations: a get or convert belongs to the session the last launch opened.
        options.continuesSession = true
        options.minimumIndexSequence = minimumIndexSequence
        let now = self.now
        options.now = { now }
        let bundled = bundledDirectory.map { BundledStrings(directory: $0) } ?? BundledStrings()
        let client: RolloutClient
        switch keys {
        case .pinned(let publicKey):
            client = RolloutClient(
                bundled: bundled, cacheDirectory: stateDirectory, manifestURL: manifestURL, publicKey: publicKey,
                appVersion: appVersion, region: region, locale: locale, options: options)
        case .roots(let trust):
            client = RolloutClient(
                bundled: bundled, cacheDirectory: stateDirectory, manifestURL: manifestURL, trust: trust,
                appVersion: appVersion, region: region, locale: locale, options: options)
        }
        return (client, bundled.problems.map(\.description))
    }
}

extension Error where Self == RolloutError {
    fileprivate static var deviceNeedsKey: RolloutError {
        .usage(
            """
            rollout device needs --root-key KEY (an app on a key list) or --public-key KEY (an app that pins \
            one key); see rollout help device
            """)
    }
}
