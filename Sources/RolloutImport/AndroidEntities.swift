import Foundation
import RolloutModel

/// A resource file's `<!DOCTYPE resources [<!ENTITY name "text">]>`, read as aapt2's XML parser
/// (expat) reads it: each `&name;` in the document is the entity's text, itself read as XML
/// (markup, character references and other entities in it are what they would be in place).
/// External entities and DTDs (`SYSTEM`, `PUBLIC`) and parameter entities (`%name;`) are refused,
/// never opened; an expansion past `limit` characters ("billion laughs") is refused. The DOCTYPE
/// is replaced by as many line breaks as it spans, so the parser's line numbers still hold.
/// Java's twin is AndroidStringsXml.expandEntities: both must give the same document.
struct AndroidEntities {
    /// The most characters entity references may add to one file.
    static let limit = InputLimits.xmlEntityCharacters

    struct Refusal: Error {
        let line: Int
        let reason: String
    }

    private var s: [Unicode.Scalar]
    private var i = 0
    private var entities: [String: [Unicode.Scalar]] = [:]
    private var budget = AndroidEntities.limit

    /// The document with its DOCTYPE's entities expanded, or nil when it declares no DOCTYPE (the XML
    /// parser reads it as it declares itself). A DOCTYPE is read only in UTF-8, as the Android client
    /// reads it (AndroidStringsXml): in a UTF-16 file (with or without a byte order mark) or one in
    /// another encoding, where "<!DOCTYPE" is not among the UTF-8 bytes looked for, it reached the XML
    /// parser, which left an external entity silently empty and refused a "billion laughs" as
    /// "XML parser error 89". Such a file is refused, with the fix.
    static func expand(_ data: Data) throws -> Data? {
        if let utf16 = utf16Text(data) {
            guard !utf16.contains("<!DOCTYPE") else { throw notUTF8("UTF-16") }
            return nil
        }
        // XML has no NUL: a file with one is UTF-32 or not text, neither of which aapt2 reads.
        guard !data.contains(0) else {
            throw Refusal(line: 1, reason: "the file has NUL bytes: it is not UTF-8 or UTF-16 text; save it as UTF-8")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            // ISO 8859-1 and other 8-bit encodings write "<!DOCTYPE" in ASCII.
            guard data.range(of: Data("<!DOCTYPE".utf8)) == nil else { throw notUTF8("neither UTF-8 nor UTF-16") }
            return nil
        }
        guard data.range(of: Data("<!DOCTYPE".utf8)) != nil else { return nil }
        var reader = AndroidEntities(s: Array(text.unicodeScalars))
        return Data(String(String.UnicodeScalarView(try reader.document())).utf8)
    }

    private static func notUTF8(_ encoding: String) -> Refusal {
        Refusal(
            line: 1,
            reason:
                "the file is \(encoding) and declares a DOCTYPE, which is read only in UTF-8 (its entities are never "
                + "left to the XML parser); save the file as UTF-8")
    }

    /// The text of a UTF-16 document: with a byte order mark, or without one when every other
    /// byte of its first characters is 0 (`<` is 3C 00 little-endian, 00 3C big-endian).
    private static func utf16Text(_ data: Data) -> String? {
        let head = Array(data.prefix(4))
        guard head.count >= 2, data.count % 2 == 0 else { return nil }
        let encoding: String.Encoding
        switch (head[0], head[1]) {
        case (0xFF, 0xFE):
            guard head.count < 4 || head[2] != 0 || head[3] != 0 else { return nil }  // UTF-32LE
            encoding = .utf16
        case (0xFE, 0xFF): encoding = .utf16
        case (1...0x7F, 0):
            guard head.count < 4 || head[2] != 0 || head[3] != 0 else { return nil }  // UTF-32LE
            encoding = .utf16LittleEndian
        case (0, 1...0x7F): encoding = .utf16BigEndian
        default: return nil
        }
        return String(data: data, encoding: encoding)
    }

    private init(s: [Unicode.Scalar]) { self.s = s }

    private func line(_ at: Int) -> Int { 1 + s[..<min(at, s.count)].lazy.filter { $0 == "\n" }.count }

    private func refuse(_ reason: String, at: Int? = nil) -> Refusal { Refusal(line: line(at ?? i), reason: reason) }

    private func starts(_ prefix: String, at: Int) -> Bool {
        let p = Array(prefix.unicodeScalars)
        return at + p.count <= s.count && Array(s[at..<(at + p.count)]) == p
    }

    private static func isSpace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\n" || c == "\r" }

    private mutating func skipSpaces() { while i < s.count, Self.isSpace(s[i]) { i += 1 } }

    /// Up to and past `end`, or the end of the document.
    private mutating func skip(past end: String) {
        while i < s.count, !starts(end, at: i) { i += 1 }
        i = min(s.count, i + end.unicodeScalars.count)
    }

    private mutating func name() -> String {
        var out = String.UnicodeScalarView()
        while i < s.count, !Self.isSpace(s[i]), !"\"'>[]%;&<".unicodeScalars.contains(s[i]) {
            out.append(s[i])
            i += 1
        }
        return String(out)
    }

    private mutating func quoted() throws -> [Unicode.Scalar] {
        guard i < s.count, s[i] == "\"" || s[i] == "'" else { throw refuse("a DOCTYPE declaration is not complete") }
        let quote = s[i]
        let start = i + 1
        guard let end = s[start...].firstIndex(of: quote) else { throw refuse("a quoted value is not closed") }
        i = end + 1
        return Array(s[start..<end])
    }

    private mutating func document() throws -> [Unicode.Scalar] {
        // The prolog: the XML declaration, comments and space come before the DOCTYPE.
        while i < s.count {
            if Self.isSpace(s[i]) {
                i += 1
            } else if starts("<?", at: i) {
                skip(past: "?>")
            } else if starts("<!--", at: i) {
                skip(past: "-->")
            } else {
                break
            }
        }
        guard starts("<!DOCTYPE", at: i) else { return s }
        let doctype = i
        try doctypeDeclaration()
        let blank = Array(repeating: Unicode.Scalar("\n"), count: line(i) - line(doctype))
        return Array(s[..<doctype]) + blank + (try body(from: i))
    }

    private mutating func doctypeDeclaration() throws {
        let start = i
        i += "<!DOCTYPE".count
        skipSpaces()
        _ = name()
        skipSpaces()
        if starts("SYSTEM", at: i) || starts("PUBLIC", at: i) {
            throw refuse(
                "an external DTD (<!DOCTYPE … \(starts("SYSTEM", at: i) ? "SYSTEM" : "PUBLIC") …>) is not read: declare its entities in the file, <!ENTITY name \"text\">",
                at: start)
        }
        if i < s.count, s[i] == "[" {
            i += 1
            try internalSubset()
        }
        skipSpaces()
        guard i < s.count, s[i] == ">" else { throw refuse("the DOCTYPE declaration is not closed", at: start) }
        i += 1
    }

    private mutating func internalSubset() throws {
        while true {
            skipSpaces()
            guard i < s.count else { throw refuse("the DOCTYPE's [ is not closed") }
            if s[i] == "]" {
                i += 1
                return
            } else if starts("<!ENTITY", at: i) {
                try entityDeclaration()
            } else if starts("<!--", at: i) {
                skip(past: "-->")
            } else if starts("<?", at: i) {
                skip(past: "?>")
            } else if s[i] == "%" {
                throw refuse("a parameter entity reference (%name;) is not read: declare the entities in the file")
            } else if starts("<!", at: i) {
                // <!ELEMENT>, <!ATTLIST>, <!NOTATION>: nothing a string's text needs.
                while i < s.count, s[i] != ">" {
                    if s[i] == "\"" || s[i] == "'" { _ = try quoted() } else { i += 1 }
                }
                i += 1
            } else {
                throw refuse("the DOCTYPE holds something that is not a declaration")
            }
        }
    }

    private mutating func entityDeclaration() throws {
        let start = i
        i += "<!ENTITY".count
        skipSpaces()
        if i < s.count, s[i] == "%" {
            throw refuse(
                "a parameter entity (<!ENTITY % …>) is not read: declare general entities, <!ENTITY name \"text\">",
                at: start)
        }
        let entity = name()
        skipSpaces()
        if starts("SYSTEM", at: i) || starts("PUBLIC", at: i) {
            let kind = starts("SYSTEM", at: i) ? "SYSTEM" : "PUBLIC"
            i += kind.count
            skipSpaces()
            let location = String(String.UnicodeScalarView((try? quoted()) ?? []))
            throw refuse(
                "the external entity \(entity) (\(kind) \"\(location)\") is not read: write its text in the file, <!ENTITY \(entity) \"text\">",
                at: start)
        }
        let literal = try quoted()
        skipSpaces()
        guard i < s.count, s[i] == ">" else { throw refuse("the declaration of \(entity) is not closed", at: start) }
        i += 1
        guard !entity.isEmpty else { throw refuse("an entity declaration has no name", at: start) }
        if entities[entity] == nil { entities[entity] = try Self.replacementText(literal, line: line(start)) }
    }

    /// An entity's literal as its replacement text: character references are read now, other
    /// entity references when the entity is used (XML 1.0, 4.5).
    private static func replacementText(_ literal: [Unicode.Scalar], line: Int) throws -> [Unicode.Scalar] {
        var out: [Unicode.Scalar] = []
        var j = 0
        while j < literal.count {
            if literal[j] == "%" {
                throw Refusal(line: line, reason: "a parameter entity reference (%name;) is not read")
            }
            if literal[j] == "&", j + 2 < literal.count, literal[j + 1] == "#",
                let end = literal[j...].firstIndex(of: ";")
            {
                let digits = String(String.UnicodeScalarView(literal[(j + 2)..<end]))
                let value = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
                guard let scalar = value.flatMap(Unicode.Scalar.init) else {
                    throw Refusal(line: line, reason: "&#\(digits); is no character")
                }
                out.append(scalar)
                j = end + 1
            } else {
                out.append(literal[j])
                j += 1
            }
        }
        return out
    }

    /// The document after the DOCTYPE, each declared entity's reference replaced by its text.
    private mutating func body(from start: Int) throws -> [Unicode.Scalar] {
        var out: [Unicode.Scalar] = []
        var j = start
        var inTag = false
        while j < s.count {
            let c = s[j]
            if !inTag,
                let end = ["<!--": "-->", "<![CDATA[": "]]>", "<?": "?>"].first(where: { starts($0.key, at: j) })
            {
                let from = j
                i = j
                skip(past: end.value)
                j = i
                out += s[from..<j]
                continue
            }
            if c == "<" { inTag = true } else if c == ">" { inTag = false }
            guard c == "&", let semicolon = s[j...].prefix(64).firstIndex(of: ";") else {
                out.append(c)
                j += 1
                continue
            }
            let name = String(String.UnicodeScalarView(s[(j + 1)..<semicolon]))
            try reference(name, at: j, inAttribute: inTag, open: [], into: &out)
            j = semicolon + 1
        }
        return out
    }

    /// What `&name;` stands for, appended to `out`: itself when the XML parser reads it (a character
    /// reference, one of XML's five), else the declared entity's text with the references in it
    /// expanded. Every character an entity adds counts against `budget`, as it is added.
    private mutating func reference(
        _ name: String, at: Int, inAttribute: Bool, open: [String], into out: inout [Unicode.Scalar]
    ) throws {
        if name.hasPrefix("#") || ["lt", "gt", "amp", "apos", "quot"].contains(name) {
            out += Array("&\(name);".unicodeScalars)
            return
        }
        guard let text = entities[name] else {
            throw refuse("&\(name); is not declared in the file's DOCTYPE, and aapt2 refuses it too", at: at)
        }
        guard !open.contains(name) else { throw refuse("the entity \(name) refers to itself", at: at) }
        var j = 0
        while j < text.count {
            if text[j] == "&", let semicolon = text[j...].firstIndex(of: ";") {
                let inner = String(String.UnicodeScalarView(text[(j + 1)..<semicolon]))
                try reference(inner, at: at, inAttribute: inAttribute, open: open + [name], into: &out)
                j = semicolon + 1
                continue
            }
            budget -= 1
            guard budget >= 0 else {
                throw refuse(
                    "its entities expand to more than \(Self.limit) characters (a \"billion laughs\"), which is not read",
                    at: at)
            }
            // In an attribute value a quote from an entity is text, not the value's end.
            if inAttribute, text[j] == "\"" || text[j] == "'" {
                out += Array("&#\(text[j].value);".unicodeScalars)
            } else {
                out.append(text[j])
            }
            j += 1
        }
    }
}
