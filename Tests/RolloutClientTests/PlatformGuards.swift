import Foundation

/// Finds platform modules named where the platform may not have them (docs/client.md "Apple
/// platforms"). `Glibc`, `Darwin` and `Musl`, in an import or a qualified name, must sit inside an
/// `#if canImport(M)` or `#elseif canImport(M)` branch for that same module (at any depth, not
/// negated); and an `#if` chain with a `canImport(Glibc)` branch that names a platform module must
/// have `canImport(Darwin)` and `canImport(Musl)` branches too, so the file builds on all three.
/// Comments and string literals are ignored; the `#if` nesting is followed line by line.
enum PlatformGuards {
    static let modules = ["Darwin", "Glibc", "Musl"]

    static func problems(in source: String) -> [String] {
        struct Chain {
            let line: Int
            var conditions: [String]
            var namesAModule = false
            var current: String { conditions[conditions.count - 1] }
        }
        var found: [(line: Int, text: String)] = []
        var chains: [Chain] = []
        for (index, line) in codeOnly(source).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if let condition = directive("#if", trimmed) {
                chains.append(Chain(line: number, conditions: [condition]))
            } else if let condition = directive("#elseif", trimmed), !chains.isEmpty {
                chains[chains.count - 1].conditions.append(condition)
            } else if directive("#else", trimmed) != nil, !chains.isEmpty {
                chains[chains.count - 1].conditions.append("")
            } else if directive("#endif", trimmed) != nil, let chain = chains.popLast() {
                guard chain.namesAModule, chain.conditions.contains(where: { allows($0, "Glibc") }) else { continue }
                for sibling in ["Darwin", "Musl"] where !chain.conditions.contains(where: { allows($0, sibling) }) {
                    found.append((chain.line, "an #if chain with canImport(Glibc) has no canImport(\(sibling)) branch"))
                }
            } else {
                for module in modules where containsWord(module, in: trimmed) {
                    for index in chains.indices { chains[index].namesAModule = true }
                    if !chains.contains(where: { allows($0.current, module) }) {
                        found.append((number, "\(module) outside an #if canImport(\(module)) branch"))
                    }
                }
            }
        }
        return found.sorted { ($0.line, $0.text) < ($1.line, $1.text) }.map { "\($0.line): \($0.text)" }
    }

    /// The condition of `#if`, `#elseif`, or "" for `#else`/`#endif`; nil when the line is not that directive.
    private static func directive(_ name: String, _ line: Substring) -> String? {
        guard line.hasPrefix(name) else { return nil }
        let rest = line.dropFirst(name.count)
        guard rest.isEmpty || rest.first == " " || rest.first == "\t" || rest.first == "(" else { return nil }
        return rest.trimmingCharacters(in: .whitespaces)
    }

    /// True when `condition` holds only where `module` can be imported: it says `canImport(module)`,
    /// not negated.
    private static func allows(_ condition: String, _ module: String) -> Bool {
        let compact = condition.filter { !$0.isWhitespace }
        let test = "canImport(\(module))"
        guard let range = compact.range(of: test) else { return false }
        return range.lowerBound == compact.startIndex || compact[compact.index(before: range.lowerBound)] != "!"
    }

    private static func containsWord(_ word: String, in line: Substring) -> Bool {
        var rest = line[...]
        while let range = rest.range(of: word) {
            let before = range.lowerBound == line.startIndex ? nil : line[line.index(before: range.lowerBound)]
            let after = range.upperBound == line.endIndex ? nil : line[range.upperBound]
            if !isIdentifier(before), !isIdentifier(after) { return true }
            rest = line[range.upperBound...]
        }
        return false
    }

    private static func isIdentifier(_ character: Character?) -> Bool {
        guard let character else { return false }
        return character.isLetter || character.isNumber || character == "_"
    }

    /// The source with comments and string literals blanked out (line breaks kept, so line numbers
    /// stay): nested block comments, single-line, multi-line and raw strings.
    static func codeOnly(_ source: String) -> String {
        let characters = Array(source)
        var out: [Character] = []
        out.reserveCapacity(characters.count)
        var index = 0
        func at(_ offset: Int) -> Character? { index + offset < characters.count ? characters[index + offset] : nil }
        func blank(_ count: Int) {
            for _ in 0..<count where index < characters.count {
                out.append(characters[index] == "\n" ? "\n" : " ")
                index += 1
            }
        }
        while index < characters.count {
            let character = characters[index]
            if character == "/", at(1) == "/" {
                while index < characters.count, characters[index] != "\n" { blank(1) }
            } else if character == "/", at(1) == "*" {
                var depth = 0
                repeat {
                    if at(0) == "/", at(1) == "*" {
                        depth += 1
                        blank(2)
                    } else if at(0) == "*", at(1) == "/" {
                        depth -= 1
                        blank(2)
                    } else {
                        blank(1)
                    }
                } while depth > 0 && index < characters.count
            } else if character == "#" || character == "\"" {
                var hashes = 0
                while at(hashes) == "#" { hashes += 1 }
                guard at(hashes) == "\"" else {
                    out.append(character)
                    index += 1
                    continue
                }
                let multiline = at(hashes + 1) == "\"" && at(hashes + 2) == "\""
                let quotes = multiline ? 3 : 1
                blank(hashes + quotes)
                let closing = Array(String(repeating: "\"", count: quotes) + String(repeating: "#", count: hashes))
                while index < characters.count {
                    if hashes == 0, characters[index] == "\\" {
                        blank(2)
                    } else if Array(characters[index..<min(characters.count, index + closing.count)]) == closing {
                        blank(closing.count)
                        break
                    } else if !multiline, characters[index] == "\n" {
                        break
                    } else {
                        blank(1)
                    }
                }
            } else {
                out.append(character)
                index += 1
            }
        }
        return String(out)
    }
}
