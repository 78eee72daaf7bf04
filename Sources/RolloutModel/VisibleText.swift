/// The one rule for showing text to a person (docs/architecture.md, "Human output"): characters
/// that could rewrite a terminal (ESC starts cursor and erase sequences), ring it, cut a line short
/// (NUL, CR) or reorder what a reader sees (bidi embeddings, overrides and isolates: "Trojan
/// Source") are shown as Swift writes them in a string literal, `\u{1B}`, `\r`, `\t`, `\0`, never
/// raw; so are U+FFFE and U+FFFF, which XML 1.0 forbids in the report. The CLI applies it to all
/// of its human output and the report to all of its text, so no command can forget it; `--json`
/// keeps text exact (JSON escaping only).
public enum VisibleText {
    public enum LineBreaks: Sendable {
        /// Multi-line output: a newline stays a newline.
        case kept
        /// One line of output (a table cell, a reason in a log line): a newline from a user's text
        /// must not start a line of its own, so it shows as `\n`.
        case shown
    }

    /// True for the characters this rule never lets through raw (a newline is layout, and the
    /// caller decides about it).
    public static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x202A...0x202E, 0x2066...0x2069: return true
        // Noncharacters that XML 1.0 forbids: the report shares this rule.
        case 0xFFFE, 0xFFFF: return true
        default: return false
        }
    }

    public static func escape(_ text: String, lineBreaks: LineBreaks) -> String {
        // Printable ASCII (and newlines kept as layout) needs nothing: checked on bytes, since a whole
        // command's output (a whole-history log) goes through here.
        let kept = lineBreaks == .kept
        if text.utf8.allSatisfy({ (0x20..<0x7F).contains($0) || ($0 == 0x0A && kept) }) { return text }
        guard text.unicodeScalars.contains(where: { isHidden($0) && !($0 == "\n" && kept) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n" where lineBreaks == .kept: out.append(scalar)
            case _ where !isHidden(scalar): out.append(scalar)
            case "\n": out.append(contentsOf: #"\n"#.unicodeScalars)
            case "\t": out.append(contentsOf: #"\t"#.unicodeScalars)
            case "\r": out.append(contentsOf: #"\r"#.unicodeScalars)
            case "\0": out.append(contentsOf: #"\0"#.unicodeScalars)
            default: out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            }
        }
        return String(out)
    }
}

extension String {
    /// Text from users (reasons, actors, keys, values) for one line of human output.
    public var oneLine: String { VisibleText.escape(self, lineBreaks: .shown) }
}
