import RolloutModel

/// ANSI styling, switched off unless stdout is a terminal and NO_COLOR is unset.
public struct Style {
    public let enabled: Bool

    private func wrap(_ code: String, _ text: String) -> String { enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
    func bold(_ text: String) -> String { wrap("1", text) }
    func dim(_ text: String) -> String { wrap("2", text) }
    func red(_ text: String) -> String { wrap("31", text) }
    func green(_ text: String) -> String { wrap("32", text) }
    func yellow(_ text: String) -> String { wrap("33", text) }
}

/// A text table with columns aligned on character width.
struct Table {
    var headers: [String]
    var rows: [[String]] = []

    init(_ headers: String...) { self.headers = headers }

    mutating func add(_ cells: String...) { rows.append(cells) }

    func render(_ style: Style) -> String {
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
    let flat = text.replacingNewlines
    return flat.count <= width ? flat : String(flat.prefix(width - 1)) + "…"
}

extension String {
    /// Text from users (reasons, actors, strings) made safe to print: newlines and tabs shown as
    /// symbols, every other control character (an escape sequence could rewrite the terminal) as U+FFFD.
    var replacingNewlines: String {
        var out = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            switch scalar.value {
            case 0x0A: out.append("⏎")
            case 0x09: out.append("⇥")
            case 0..<0x20, 0x7F...0x9F: out.append("\u{FFFD}")
            default: out.append(scalar)
            }
        }
        return String(out)
    }
}

extension LintFinding {
    func render(_ style: Style) -> String {
        let label = severity == .error ? style.red("error") : style.yellow("warning")
        let key = self.key.map { " \"\($0)\"" } ?? ""
        return "\(label): \(pack)\(key): \(message) [\(rule)]"
    }
}
