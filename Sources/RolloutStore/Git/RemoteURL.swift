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
        // The authority runs to the first '/', '?', '#' or space; its userinfo to its last '@'.
        guard let pattern = try? NSRegularExpression(pattern: "([A-Za-z][A-Za-z0-9+.-]*)://([^/?#\\s]*)@") else {
            return out
        }
        var result = ""
        var cursor = out.startIndex
        for match in pattern.matches(in: out, range: NSRange(out.startIndex..., in: out)) {
            guard let range = Range(match.range, in: out), let schemeRange = Range(match.range(at: 1), in: out),
                let userinfoRange = Range(match.range(at: 2), in: out)
            else { continue }
            let userinfo = out[userinfoRange]
            result += out[cursor..<range.lowerBound]
            result += "\(out[schemeRange])://"
            if isAccount(scheme: out[schemeRange], userinfo: userinfo) { result += "\(userinfo)@" }
            cursor = range.upperBound
        }
        result += out[cursor...]
        return scpRedacted(result)
    }

    /// The credentials a URL carries in its userinfo, as written and percent-decoded, so text that
    /// repeats them can be cleaned: the password when there is one, else the user name (a token in
    /// GitHub's `https://TOKEN@host` form); none for an ssh account.
    public static func credentials(in url: String) -> [String] {
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
