import Foundation

/// The one rule for showing a remote's URL, or text that may hold one (docs/teams.md, "Credentials"):
/// no credential is printed, written to `--json`, a reflog or a commit. A token may sit in a URL's
/// user name (`https://TOKEN@host`, GitHub's form) as well as its password, so everything before
/// the authority's last `@` is dropped, except the plain user name of an ssh URL (`ssh://git@host/x`,
/// `git@host:x`), which is an account, not a secret.
public enum RemoteURL {
    /// `url` as a person may see it.
    public static func redacted(_ url: String) -> String {
        redactingURLs(in: url, secrets: credentials(in: url))
    }

    /// `text` with the userinfo of every URL in it removed, and every secret in `secrets` (the
    /// credentials of the remote's configured URLs, which a server may echo back undecorated)
    /// replaced by `***`.
    public static func redactingURLs(in text: String, secrets: [String] = []) -> String {
        var out = text
        for secret in secrets where secret.count >= 4 {
            out = out.replacingOccurrences(of: secret, with: "***")
        }
        // The authority runs to the first '/', '?', '#' or space; its userinfo to its last '@'. A match
        // is tried only where a run of scheme characters starts (the lookbehind), its scheme from the
        // run's first letter: the same matches, but a long word is scanned once, not once from each
        // of its characters (quadratic: an error quoting 60,000 letters took 35 s).
        guard
            let pattern = try? NSRegularExpression(
                pattern: "(?<![A-Za-z0-9+.-])[0-9+.-]*([A-Za-z][A-Za-z0-9+.-]*)://([^/?#\\s]*)@")
        else {
            return out
        }
        var result = ""
        var cursor = out.startIndex
        for match in pattern.matches(in: out, range: NSRange(out.startIndex..., in: out)) {
            guard let range = Range(match.range, in: out), let schemeRange = Range(match.range(at: 1), in: out),
                let userinfoRange = Range(match.range(at: 2), in: out)
            else { continue }
            let userinfo = out[userinfoRange]
            result += out[cursor..<schemeRange.lowerBound]
            result += "\(out[schemeRange])://"
            if isAccount(scheme: out[schemeRange], userinfo: userinfo) { result += "\(userinfo)@" }
            cursor = range.upperBound
        }
        result += out[cursor...]
        return queryRedacted(scpRedacted(result))
    }

    /// Where a URL's text ends inside a message: at a space, a quote or a bracket git puts around it.
    private static func endsURL(_ character: Character) -> Bool {
        character.isWhitespace || "'\"<>`()[]{}".contains(character)
    }

    /// Every URL's query string with each value replaced by `***` (`?private_token=***&ref=***`): a
    /// token may travel there too (GitLab's `private_token`, a signed URL's signature). One pass:
    /// each URL is read once, to its end, whatever the text.
    private static func queryRedacted(_ text: String) -> String {
        guard text.contains("://"), text.contains("?") else { return text }
        var result = ""
        var cursor = text.startIndex
        while let scheme = text.range(of: "://", range: cursor..<text.endIndex) {
            let end = text[scheme.upperBound...].firstIndex(where: endsURL) ?? text.endIndex
            let url = text[scheme.upperBound..<end]
            result += text[cursor..<scheme.upperBound]
            if let question = url.firstIndex(of: "?") {
                let fragment = url[question...].firstIndex(of: "#") ?? url.endIndex
                result += url[..<url.index(after: question)]
                result += url[url.index(after: question)..<fragment].split(
                    separator: "&", omittingEmptySubsequences: false
                )
                .map { parameter in
                    guard let equals = parameter.firstIndex(of: "=") else { return parameter.isEmpty ? "" : "***" }
                    return parameter[...equals] + (parameter[parameter.index(after: equals)...].isEmpty ? "" : "***")
                }.joined(separator: "&")
                result += url[fragment...]
            } else {
                result += url
            }
            cursor = end
        }
        return result + text[cursor...]
    }

    /// The values of a URL's query string, as written and percent-decoded.
    private static func queryValues(in url: String) -> [String] {
        guard url.contains("://"), let question = url.firstIndex(of: "?") else { return [] }
        let query = url[url.index(after: question)...].prefix { $0 != "#" }
        return query.split(separator: "&").flatMap { parameter -> [String] in
            let value =
                parameter.firstIndex(of: "=").map { String(parameter[parameter.index(after: $0)...]) }
                ?? String(parameter)
            return [value, value.removingPercentEncoding].compactMap { $0 }
        }.filter { !$0.isEmpty }
    }

    /// The credentials a URL carries in its userinfo, as written and percent-decoded, so text that
    /// repeats them can be cleaned: the password when there is one, else the user name (a token in
    /// GitHub's `https://TOKEN@host` form); none for an ssh account. And the values of its query
    /// string, where a token may travel too.
    public static func credentials(in url: String) -> [String] {
        (userinfoCredentials(in: url) + queryValues(in: url)).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    private static func userinfoCredentials(in url: String) -> [String] {
        let scheme: Substring
        let rest: Substring
        if let schemeEnd = url.range(of: "://") {
            scheme = url[..<schemeEnd.lowerBound]
            rest = url[schemeEnd.upperBound...]
        } else {
            scheme = "ssh"
            rest = url[...]
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return [] }
        let userinfo = authority[..<at]
        if isAccount(scheme: scheme, userinfo: userinfo) { return [] }
        let secret =
            userinfo.firstIndex(of: ":").map { String(userinfo[userinfo.index(after: $0)...]) } ?? String(userinfo)
        return [secret, secret.removingPercentEncoding].compactMap { $0 }.filter { !$0.isEmpty }.reduce(into: []) {
            if !$0.contains($1) { $0.append($1) }
        }
    }

    private static func isAccount(scheme: Substring, userinfo: Substring) -> Bool {
        scheme.lowercased().contains("ssh") && !userinfo.isEmpty && !userinfo.contains(":")
    }

    /// An scp-like address (`user:secret@host:path`) cannot carry a password for ssh, but one
    /// typed that way is still a secret: the userinfo goes when it holds a ':'.
    private static func scpRedacted(_ text: String) -> String {
        guard !text.contains("://"),
            let pattern = try? NSRegularExpression(pattern: "^[^/@\\s:]+:[^/@\\s]*@(?=[^/@\\s:]+:)")
        else { return text }
        return pattern.stringByReplacingMatches(
            in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "")
    }
}
