/// Packs carry text only (seed 000: an OTA channel must not become a way to ship code, App Review
/// guideline 2.5.2) and nothing secret (Remote Config values are readable by anyone who has the app).
public enum TextSafety {
    public struct Problem: Equatable, Sendable {
        public enum Kind: String, Sendable { case controlCharacter, executable, secret }
        public let kind: Kind
        public let detail: String
    }

    public static func check(_ text: String) -> [Problem] {
        var problems: [Problem] = []
        for scalar in text.unicodeScalars {
            if let name = forbiddenScalarName(scalar) {
                problems.append(Problem(kind: .controlCharacter, detail: name))
                break
            }
        }
        let lowered = Array(text.lowercased().utf8)
        if let marker = executableMarker(lowered) {
            problems.append(Problem(kind: .executable, detail: marker))
        }
        if let secret = secretKind(Array(text.utf8)) {
            problems.append(Problem(kind: .secret, detail: secret))
        }
        return problems
    }

    static func forbiddenScalarName(_ scalar: Unicode.Scalar) -> String? {
        let v = scalar.value
        if v == 0x0A || v == 0x09 { return nil }
        if v < 0x20 || (0x7F...0x9F).contains(v) {
            return "control character U+" + hex4(v)
        }
        // Overrides reverse what a reader sees (the "Trojan Source" trick). Embeddings and their
        // closing PDF (U+202A-202C), isolates (U+2066-2069) and the directional marks stay allowed:
        // Arabic and Persian translations use them, and every platform renders them.
        if v == 0x202D || v == 0x202E { return "bidirectional override U+" + hex4(v) }
        return nil
    }

    private static func hex4(_ v: UInt32) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    private static let executableNeedles: [(String, String)] = [
        ("<script", "a <script> tag"), ("javascript:", "a javascript: URL"), ("vbscript:", "a vbscript: URL"),
        ("data:text/html", "a data:text/html URL"), ("<iframe", "an <iframe> tag"), ("<object", "an <object> tag"),
        ("<embed", "an <embed> tag"), ("<meta", "a <meta> tag"), ("<link", "a <link> tag"), ("<style", "a <style> tag"),
    ]

    static func executableMarker(_ lowered: [UInt8]) -> String? {
        for (needle, name) in executableNeedles where contains(lowered, Array(needle.utf8)) { return name }
        return eventHandlerAttribute(lowered)
    }

    /// `<img src=x onerror=...>`: an HTML tag with an `on...=` attribute.
    private static func eventHandlerAttribute(_ s: [UInt8]) -> String? {
        var i = 0
        while i < s.count {
            guard s[i] == UInt8(ascii: "<"), i + 1 < s.count, isLetter(s[i + 1]) else {
                i += 1
                continue
            }
            var j = i + 1
            while j < s.count, s[j] != UInt8(ascii: ">") {
                let previous = s[j - 1]
                if previous == 0x20 || previous == 0x09 || previous == 0x0A || previous == UInt8(ascii: "/"),
                    s[j] == UInt8(ascii: "o"), j + 2 < s.count, s[j + 1] == UInt8(ascii: "n"), isLetter(s[j + 2])
                {
                    var k = j + 2
                    while k < s.count, isLetter(s[k]) { k += 1 }
                    while k < s.count, s[k] == 0x20 { k += 1 }
                    if k < s.count, s[k] == UInt8(ascii: "=") {
                        return "an HTML event handler (\(String(decoding: s[j..<min(k, j + 20)], as: UTF8.self))=)"
                    }
                }
                j += 1
            }
            i = j
        }
        return nil
    }

    /// Recognisable credentials: fixed prefixes with the right length and alphabet after them.
    static func secretKind(_ s: [UInt8]) -> String? {
        let rules: [(prefix: String, name: String, minimumTail: Int, alphabet: (UInt8) -> Bool)] = [
            ("AKIA", "an AWS access key id", 16, { isUpper($0) || isDigit($0) }),
            ("ASIA", "an AWS temporary access key id", 16, { isUpper($0) || isDigit($0) }),
            ("AIza", "a Google API key", 35, { isAlnum($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }),
            ("ghp_", "a GitHub token", 36, isAlnum),
            ("gho_", "a GitHub token", 36, isAlnum),
            ("github_pat_", "a GitHub token", 40, { isAlnum($0) || $0 == UInt8(ascii: "_") }),
            ("glpat-", "a GitLab token", 20, { isAlnum($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }),
            ("sk_live_", "a Stripe secret key", 20, isAlnum),
            ("rk_live_", "a Stripe restricted key", 20, isAlnum),
            ("xoxb-", "a Slack token", 20, { isAlnum($0) || $0 == UInt8(ascii: "-") }),
            ("xoxp-", "a Slack token", 20, { isAlnum($0) || $0 == UInt8(ascii: "-") }),
            ("sk-", "an API secret key", 40, { isAlnum($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }),
        ]
        for rule in rules {
            let prefix = Array(rule.prefix.utf8)
            var start = 0
            while let found = firstIndex(of: prefix, in: s, from: start) {
                let boundary = found == 0 || !isAlnum(s[found - 1])
                var end = found + prefix.count
                while end < s.count, rule.alphabet(s[end]) { end += 1 }
                if boundary && end - (found + prefix.count) >= rule.minimumTail { return rule.name }
                start = found + 1
            }
        }
        if contains(s, Array("-----BEGIN ".utf8)) && contains(s, Array("PRIVATE KEY-----".utf8)) {
            return "a private key"
        }
        if let jwt = firstIndex(of: Array("eyJ".utf8), in: s, from: 0) {
            // header.payload.signature, each base64url: a bearer token someone pasted.
            var dots = 0
            var i = jwt
            while i < s.count,
                isAlnum(s[i]) || s[i] == UInt8(ascii: "-") || s[i] == UInt8(ascii: "_") || s[i] == UInt8(ascii: ".")
            {
                if s[i] == UInt8(ascii: ".") { dots += 1 }
                i += 1
            }
            if dots == 2 && i - jwt >= 30 { return "a JSON Web Token" }
        }
        return nil
    }

    private static func isLetter(_ b: UInt8) -> Bool { (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) }
    private static func isUpper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }
    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    private static func isAlnum(_ b: UInt8) -> Bool { isLetter(b) || isDigit(b) }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        firstIndex(of: needle, in: haystack, from: 0) != nil
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, from <= haystack.count - needle.count else { return nil }
        let first = needle[0]
        var i = from
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first {
                var k = 1
                while k < needle.count && haystack[i + k] == needle[k] { k += 1 }
                if k == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}
