import RolloutModel

/// A segment of a plan named on the command line (`--segment TR/4.8`, log, revert, metrics show): a
/// region or `*`, then `/` and an app-version prefix (`4.8`, `4.8.x`) or `*`; `TR` alone is every
/// version in TR.
package struct Segment: ArgumentValue, Sendable {
    package let region: String
    package let versions: VersionRange

    package static func argument(_ text: String, flag: String) throws -> Segment {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2, !parts[0].isEmpty else {
            throw RolloutError.usage("segment \"\(text)\" is not REGION/VERSION, for example TR/4.8 or */4.8")
        }
        if parts.count == 1,
            let separator = text.firstIndex(where: { $0 == "-" || $0 == ":" || $0 == " " || $0 == "_" }),
            AppVersion(String(text[text.index(after: separator)...])) != nil
        {
            let suggestion = "\(text[..<separator])/\(text[text.index(after: separator)...])"
            throw RolloutError.usage("segment \"\(text)\" is not REGION/VERSION (did you mean \(suggestion)?)")
        }
        let region = try Region.parse(parts[0])
        // "TR/$V" with V unset must not widen to every version.
        if parts.count == 2 && parts[1].trimmingSpaces.isEmpty {
            throw RolloutError.usage(
                "segment \"\(text)\" has an empty version: give one (\(parts[0])/4.8), * for every version, or leave out the slash"
            )
        }
        guard parts.count == 2, parts[1] != "*" else { return Segment(region: region, versions: .all) }
        let prefix = parts[1].hasSuffix(".x") ? String(parts[1].dropLast(2)) : parts[1]
        guard let version = AppVersion(prefix) else {
            throw RolloutError.usage("segment \"\(text)\": \"\(parts[1])\" is not an app-version prefix such as 4.8")
        }
        return Segment(region: region, versions: .prefix(version))
    }
}
