import Foundation
import RolloutClient
import RolloutCrypto
import RolloutModel

/// The device `rollout device` plays, from its flags: checked here so that a typo is a usage error
/// naming the flag, never a device that quietly matches nothing.
struct DeviceSetup {
    let stateDirectory: URL
    let manifestURL: URL
    let publicKey: String
    let bundledDirectory: URL?
    let locale: String
    let region: String
    let appVersion: String
    let installID: String?
    let now: Date

    static func parse(_ invocation: Invocation, context: CommandContext) throws -> DeviceSetup {
        func required(_ name: String) throws -> String {
            guard let value = invocation.value(name) else {
                let option = invocation.command.options.first { $0.name == name }
                throw RolloutError.usage("rollout device needs --\(name) \(option?.valueName ?? "VALUE"); see rollout help device")
            }
            return value
        }
        let state = context.absolutePath(try required("state"))
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: state, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw RolloutError.usage("--state \(try required("state")) is a file; give the device's directory (created if missing)")
        }
        let manifestURL = try site(try required("site"), context: context)
        let publicKey = try PublishCommands.publicKeyOption(try required("public-key"), context: context).description
        let bundled = try invocation.value("bundled").map { text -> URL in
            let path = context.absolutePath(text)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw RolloutError.missing("--bundled \(text): no such directory")
            }
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        let locale = try PlanCommands.parseLocale(try required("locale"))
        let regionText = try required("region")
        let region: String
        do {
            region = try Region.parse(regionText)
        } catch let error as RolloutError {
            throw RolloutError.usage("--region: \(error.message)")
        }
        guard region != Region.any else { throw RolloutError.usage("--region names the device's own region, not *") }
        let appVersion = try required("app-version")
        _ = try PlanCommands.parseVersion(appVersion, flag: "--app-version")
        return DeviceSetup(
            stateDirectory: URL(fileURLWithPath: state, isDirectory: true), manifestURL: manifestURL,
            publicKey: publicKey, bundledDirectory: bundled, locale: locale, region: region, appVersion: appVersion,
            installID: invocation.value("install-id"), now: Date(timeIntervalSince1970: TimeInterval(try context.now().seconds)))
    }

    /// A directory is served through `file:` URLs; a URL names the site's directory or its
    /// `index.json`. The client's default transport reads both, and the client decides which URLs
    /// it accepts (docs/client.md): an `http:` URL to another host fails the refresh, with its reason.
    static func site(_ text: String, context: CommandContext) throws -> URL {
        if let scheme = text.range(of: "://").map({ text[..<$0.lowerBound].lowercased() }) {
            guard ["https", "http", "file"].contains(scheme), let url = URL(string: text), url.host != nil || scheme == "file" else {
                throw RolloutError.usage("--site \(text) is not an https:// URL or a directory")
            }
            let index = url.pathExtension == "json" ? url : url.appendingPathComponent("index.json")
            return index
        }
        let path = context.absolutePath(text)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw RolloutError.missing("--site \(text): no such directory; give the directory rollout publish --out wrote, or the site's URL")
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
        let now = self.now
        options.now = { now }
        let bundled = bundledDirectory.map { BundledStrings(directory: $0) } ?? BundledStrings()
        let client = RolloutClient(
            bundled: bundled, cacheDirectory: stateDirectory, manifestURL: manifestURL, publicKey: publicKey,
            appVersion: appVersion, region: region, locale: locale, options: options)
        return (client, bundled.problems.map(\.description))
    }
}
