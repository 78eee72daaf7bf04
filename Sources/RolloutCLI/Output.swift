import RolloutModel

/// ANSI styling, switched off unless stdout is a terminal and NO_COLOR is unset.
///
/// Colour is marked, not written: every human text passes through `VisibleText` before it is
/// printed, which shows any ESC as `\u{1B}`, so `Style` wraps text in marks that rule leaves alone
/// and `terminal(_:)` turns only those marks into ANSI codes afterwards. A mark carries a token
/// made fresh for each run, so text from a user cannot forge one.
public struct Style {
    public let enabled: Bool
    let token: String

    init(enabled: Bool, token: String) {
        self.enabled = enabled
        self.token = token
    }

    private var opening: String { "\u{E000}\(token);" }
    private static let closing = "\u{E001}"

    private func wrap(_ code: String, _ text: String) -> String {
        enabled ? "\(opening)\(code)\(Self.closing)\(text)\(opening)0\(Self.closing)" : text
    }
    package func bold(_ text: String) -> String { wrap("1", text) }
    package func dim(_ text: String) -> String { wrap("2", text) }
    package func red(_ text: String) -> String { wrap("31", text) }
    package func green(_ text: String) -> String { wrap("32", text) }
    package func yellow(_ text: String) -> String { wrap("33", text) }

    /// What a person's terminal receives: the one escaping rule over all of the text, then this
    /// run's colour marks as ANSI codes.
    func terminal(_ text: String) -> String {
        let visible = VisibleText.escape(text, lineBreaks: .kept)
        guard enabled, visible.contains(opening) else { return visible }
        let pieces = visible.components(separatedBy: opening)
        var out = pieces[0]
        for piece in pieces.dropFirst() {
            guard let end = piece.range(of: Self.closing) else {
                out += piece
                continue
            }
            out += "\u{1B}[\(piece[..<end.lowerBound])m" + piece[end.upperBound...]
        }
        return out
    }
}

/// A text table with columns aligned on character width.
package struct Table {
    var headers: [String]
    var rows: [[String]] = []

    package init(_ headers: String...) { self.headers = headers }

    package mutating func add(_ cells: String...) { rows.append(cells) }
    package mutating func add(_ cells: [String]) { rows.append(cells) }

    /// Cells are user text on one line: `VisibleText` shows their newlines and controls before the
    /// widths are measured, so columns stay aligned.
    package func render(_ style: Style) -> String {
        let rows = self.rows.map { $0.map(\.oneLine) }
        var widths = headers.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                i == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: "  ")
        }
        return ([style.bold(line(headers))] + rows.map(line)).joined(separator: "\n") + "\n"
    }
}

/// Shortens text for a table cell, keeping it on one line.
func cell(_ text: String, width: Int = 60) -> String {
    let flat = text.oneLine
    return flat.count <= width ? flat : String(flat.prefix(width - 1)) + "…"
}

extension LintFinding {
    /// The finding as a person reads it: what is wrong, then the flag that gets past it.
    var sentence: String {
        switch override {
        case nil: return message
        case .allowRemovedKeys: return message + ". Pass --allow-removed-keys if that is intended"
        case .approval: return message + "; it may not change over the air without --approved-by NAME"
        }
    }

    func render(_ style: Style) -> String {
        let label = severity == .error ? style.red("error") : style.yellow("warning")
        // A key may be 4096 bytes long: a finding quotes it, and any long word, as errors do.
        let key = self.key.map { " \"\(InputLimits.echo($0.oneLine))\"" } ?? ""
        return "\(label): \(pack)\(key): \(InputLimits.shortenedWords(sentence.oneLine)) [\(rule)]"
    }

    /// A finding in `pack lint --json` (docs/pack-format.md).
    var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "severity": .string(severity.rawValue), "rule": .string(rule), "pack": .string(pack.description),
            "message": .string(sentence),
        ]
        if let key { object["key"] = .string(key) }
        return .object(object)
    }
}
