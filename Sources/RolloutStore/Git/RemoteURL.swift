import Foundation

/// The one rule for showing a remote's URL, or text that may hold one (docs/teams.md, "Credentials
/// never leave the config"): no credential is printed, written to `--json`, a reflog or a commit.
/// A token may sit in a URL's user name (`https://TOKEN@host`, GitHub's form) as well as its
/// password, so everything before `@` is dropped, except the plain user name of an ssh URL
/// (`ssh://git@host/x`, `git@host:x`), which is an account, not a secret.
public enum RemoteURL {
    /// `url` as a person may see it.
    public static func redacted(_ url: String) -> String {
        redactingURLs(in: url)
    }

    /// `text` with the userinfo of every URL in it removed, and every secret in `secrets` (the
    /// credentials of the remote's configured URLs, which a server may echo back undecorated)
    /// replaced by `***`.
    public static func redactingURLs(in text: String, secrets: [String] = []) -> String {
        var out = text
        for secret in secrets where secret.count >= 4 {
            out = out.replacingOccurrences(of: secret, with: "***")
        }
        guard let pattern = try? NSRegularExpression(pattern: "([A-Za-z][A-Za-z0-9+.-]*)://([^/?#@\\s'\"]*)@") else { return out }
        let whole = NSRange(out.startIndex..., in: out)
        var result = ""
        var cursor = out.startIndex
        for match in pattern.matches(in: out, range: whole) {
            guard let range = Range(match.range, in: out), let schemeRange = Range(match.range(at: 1), in: out),
                let userinfoRange = Range(match.range(at: 2), in: out)
            else { continue }
            let scheme = out[schemeRange].lowercased()
            let userinfo = out[userinfoRange]
            result += out[cursor..<range.lowerBound]
            result += "\(out[schemeRange])://"
            if scheme.contains("ssh") && !userinfo.contains(":") && !userinfo.isEmpty { result += "\(userinfo)@" }
            cursor = range.upperBound
        }
        result += out[cursor...]
        return result
    }

    /// The credentials a URL carries in its userinfo (the user name and the password, as written
    /// and percent-decoded), so text that repeats them can be cleaned; none for an ssh user name.
    public static func credentials(in url: String) -> [String] {
        guard let schemeEnd = url.range(of: "://") else { return [] }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return [] }
        let userinfo = authority[..<at]
        if scheme.contains("ssh") && !userinfo.contains(":") { return [] }
        var parts = userinfo.split(separator: ":", maxSplits: 1).map(String.init)
        parts += parts.compactMap { $0.removingPercentEncoding }.filter { !parts.contains($0) }
        return parts.filter { !$0.isEmpty }
    }
}
