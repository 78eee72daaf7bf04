/// Where and why a document is not acceptable JSON.
public struct JSONParseError: Error, Equatable, Sendable {
    public let message: String
    public let line: Int
    public let column: Int

    public var description: String { "line \(line), column \(column): \(message)" }
}

/// A key an object of a catalog gives twice with different values, which
/// `StrictJSONParser.parse(_:duplicates:)` leaves out: the keys from the root down to it, and the
/// line of each time it is given.
public struct JSONDuplicateKey: Equatable, Sendable {
    public let path: [String]
    public let lines: [Int]
}

/// An RFC 8259 parser that refuses everything two parsers could disagree on: duplicate object keys,
/// invalid UTF-8, lone surrogate escapes, control characters in strings, trailing content, and nesting
/// deeper than `maximumDepth`. A leading UTF-8 byte order mark is skipped (editors on Windows write one).
public struct StrictJSONParser {
    public static let maximumDepth = 64

    public static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try document(bytes, collectingDuplicates: false).value
    }

    public static func parse(_ text: String) throws -> JSONValue { try parse(Array(text.utf8)) }

    /// The same parser for a catalog an app's own toolchain reads (`JSON.parse`, Dart's
    /// `json.decode`), which takes a key given twice: a key given twice with the same value is one
    /// key; one given twice with different values is left out of its object and listed in
    /// `duplicates` (docs/import.md). Everything else is refused as `parse` refuses it. Packs and
    /// manifests never come through here.
    public static func parse(_ bytes: [UInt8], duplicates: inout [JSONDuplicateKey]) throws -> JSONValue {
        let read = try document(bytes, collectingDuplicates: true)
        duplicates = read.duplicates
        return read.value
    }

    /// One document: a byte order mark skipped, one value, nothing after it.
    private static func document(_ bytes: [UInt8], collectingDuplicates: Bool) throws -> (
        value: JSONValue, duplicates: [JSONDuplicateKey]
    ) {
        try bytes.withUnsafeBufferPointer { buffer in
            var parser = Cursor(bytes: buffer)
            parser.collectsDuplicates = collectingDuplicates
            if buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { parser.index = 3 }
            if let encoding = wideEncoding(buffer) {
                throw parser.error("the file is \(encoding), and JSON is read as UTF-8 (RFC 8259); save it as UTF-8")
            }
            parser.skipWhitespace()
            let value = try parser.parseValue(depth: 0)
            parser.skipWhitespace()
            if parser.index != buffer.count {
                throw parser.error("unexpected content after the end of the document")
            }
            return (value, parser.duplicates)
        }
    }

    /// The name of the encoding of a file written in UTF-16 or UTF-32 (as Windows tools may save
    /// it): a byte order mark, or a NUL beside the first character, which no UTF-8 JSON has.
    private static func wideEncoding(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let head = Array(bytes.prefix(4)) + [UInt8](repeating: 0xAA, count: max(0, 4 - bytes.count))
        switch (head[0], head[1], head[2], head[3]) {
        case (0xFF, 0xFE, 0, 0), (0, 0, 0xFE, 0xFF): return "UTF-32 (it starts with a byte order mark)"
        case (0xFF, 0xFE, _, _), (0xFE, 0xFF, _, _): return "UTF-16 (it starts with a byte order mark)"
        case (1...0x7F, 0, 0, 0), (0, 0, 0, 1...0x7F): return "UTF-32"
        case (1...0x7F, 0, _, _), (0, 1...0x7F, _, _): return "UTF-16"
        default: return nil
        }
    }

    private struct Cursor: JSONByteCursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        /// Whether a key given twice is collected (`duplicates`) rather than refused.
        var collectsDuplicates = false
        var duplicates: [JSONDuplicateKey] = []
        /// The keys from the root to the value being read, kept only while collecting duplicates.
        var path: [String] = []

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        func error(_ message: String, at offset: Int? = nil) -> JSONParseError {
            let end = min(offset ?? index, bytes.count)
            var line = 1
            var lineStart = 0
            for i in 0..<end where bytes[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            // Columns count characters, not bytes, so they match what an editor shows.
            var column = 1
            for i in lineStart..<end where bytes[i] & 0xC0 != 0x80 { column += 1 }
            return JSONParseError(message: message, line: line, column: column)
        }

        func describeByte(_ byte: UInt8) -> String {
            if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
            return "byte 0x" + String(byte, radix: 16, uppercase: true)
        }

        mutating func parseValue(depth: Int) throws -> JSONValue {
            guard index < bytes.count else { throw error("unexpected end of document") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
            case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
            default: throw error("unexpected \(describeByte(bytes[index])) where a value should start")
            }
        }

        mutating func expectLiteral(_ literal: StaticString) throws {
            let count = literal.utf8CodeUnitCount
            let matches =
                index + count <= bytes.count
                && (0..<count).allSatisfy { bytes[index + $0] == literal.utf8Start[$0] }
            guard matches else { throw error("invalid literal (expected \(literal))") }
            index += count
        }

        mutating func parseObject(depth: Int) throws -> JSONValue {
            guard depth <= StrictJSONParser.maximumDepth else {
                throw error("nesting deeper than \(StrictJSONParser.maximumDepth) levels")
            }
            index += 1
            var object: [String: JSONValue] = [:]
            // Where each key starts; the line number is worked out only if a duplicate needs it.
            var keyOffsets: [String: Int] = [:]
            // Keys given more than once (only while collecting duplicates): where, and each value.
            var repeated: [String: (offsets: [Int], values: [JSONValue])] = [:]
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(object)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of document inside an object") }
                guard bytes[index] == UInt8(ascii: "\"") else {
                    throw error("expected a quoted key, found \(describeByte(bytes[index]))")
                }
                let keyOffset = index
                let key = try parseString()
                if let first = keyOffsets.index(forKey: key), !collectsDuplicates {
                    let (earlier, firstOffset) = keyOffsets[first]
                    let how =
                        earlier.isSameText(as: key) ? "" : " as the same text in another Unicode normalisation form"
                    throw error(
                        "duplicate key \"\(key)\" (first defined on line \(error("", at: firstOffset).line)\(how))",
                        at: keyOffset)
                }
                let firstOffset = keyOffsets[key]
                if firstOffset == nil { keyOffsets[key] = keyOffset }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                    throw error("expected ':' after key \"\(key)\"")
                }
                index += 1
                skipWhitespace()
                let value = try memberValue(key, depth: depth)
                if let firstOffset {
                    repeated[key, default: ([firstOffset], [object[key]!])].offsets.append(keyOffset)
                    repeated[key]!.values.append(value)
                }
                object[key] = value
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of document inside an object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    settle(repeated, in: &object)
                    return .object(object)
                }
                throw error("expected ',' or '}' in an object, found \(describeByte(bytes[index]))")
            }
        }

        /// A member's value; while collecting duplicates, read with its key on `path`.
        mutating func memberValue(_ key: String, depth: Int) throws -> JSONValue {
            guard collectsDuplicates else { return try parseValue(depth: depth) }
            path.append(key)
            defer { path.removeLast() }
            return try parseValue(depth: depth)
        }

        /// A key given twice with one value is that key; with different values it is left out of
        /// `object` and listed, with the line of each time it is given.
        mutating func settle(
            _ repeated: [String: (offsets: [Int], values: [JSONValue])], in object: inout [String: JSONValue]
        ) {
            for key in repeated.keys.sorted() {
                let (offsets, values) = repeated[key]!
                guard values.contains(where: { $0 != values[0] }) else { continue }
                object[key] = nil
                duplicates.append(JSONDuplicateKey(path: path + [key], lines: offsets.map { error("", at: $0).line }))
            }
        }

        mutating func parseArray(depth: Int) throws -> JSONValue {
            guard depth <= StrictJSONParser.maximumDepth else {
                throw error("nesting deeper than \(StrictJSONParser.maximumDepth) levels")
            }
            index += 1
            var array: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(array)
            }
            while true {
                skipWhitespace()
                array.append(try parseValue(depth: depth))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of document inside an array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(array)
                }
                throw error("expected ',' or ']' in an array, found \(describeByte(bytes[index]))")
            }
        }

        mutating func parseNumber() throws -> JSONNumber {
            let start = index
            var isInteger = true
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, isDigit(bytes[index]) { throw error("numbers may not have leading zeros") }
            } else {
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else {
                    throw error("invalid number: digits must follow '.'")
                }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard index < bytes.count, isDigit(bytes[index]) else {
                    throw error("invalid number: digits must follow the exponent")
                }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else {
                throw error("number \(text) is out of range", at: start)
            }
            // I-JSON (RFC 7493): an integer beyond 2^53 is not the same number in every parser, and
            // the canonical form (RFC 8785) writes numbers as IEEE doubles. It stays a number, but no
            // field that wants an integer accepts it.
            let exact = isInteger && value.magnitude <= 9_007_199_254_740_991
            return JSONNumber(value: value, integerValue: exact ? Int(text) : nil, literal: text)
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        mutating func parseString() throws -> String {
            index += 1
            let start = index
            var scalars: String.UnicodeScalarView? = nil
            var runStart = start
            while true {
                guard index < bytes.count else { throw error("unterminated string", at: start - 1) }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    if var built = scalars {
                        appendRun(&built, from: runStart, to: index)
                        index += 1
                        return String(built)
                    }
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    index += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") {
                    var built = scalars ?? String.UnicodeScalarView()
                    appendRun(&built, from: runStart, to: index)
                    built.append(try parseEscape())
                    scalars = built
                    runStart = index
                    continue
                }
                if byte < 0x20 {
                    throw error("control character \(describeByte(byte)) inside a string must be escaped")
                }
                if byte < 0x80 {
                    index += 1
                } else {
                    try skipUTF8Sequence()
                }
            }
        }

        func appendRun(_ view: inout String.UnicodeScalarView, from: Int, to: Int) {
            guard from < to else { return }
            view.append(
                contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[from..<to]), as: UTF8.self)
                    .unicodeScalars)
        }

        /// Validates one multi-byte UTF-8 sequence (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
        mutating func skipUTF8Sequence() throws {
            let lead = bytes[index]
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                upper = 0x9F
            case 0xF0:
                length = 4
                lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                upper = 0x8F
            default: throw error("invalid UTF-8 (\(describeByte(lead)))")
            }
            guard index + length <= bytes.count else { throw error("invalid UTF-8 (truncated sequence)") }
            let second = bytes[index + 1]
            guard second >= lower && second <= upper else {
                throw error("invalid UTF-8 (\(describeByte(lead)) followed by \(describeByte(second)))")
            }
            for k in 2..<max(2, length) where bytes[index + k] & 0xC0 != 0x80 {
                throw error("invalid UTF-8 (bad continuation \(describeByte(bytes[index + k])))")
            }
            index += length
        }

        mutating func parseEscape() throws -> Unicode.Scalar {
            index += 1
            guard index < bytes.count else { throw error("unterminated escape") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let first = try parseHex4()
                if (0xD800...0xDBFF).contains(first) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else {
                        throw error(
                            "unpaired surrogate \\u\(String(first, radix: 16, uppercase: true)) is not a character")
                    }
                    index += 2
                    let second = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(second) else {
                        throw error(
                            "unpaired surrogate \\u\(String(first, radix: 16, uppercase: true)) is not a character")
                    }
                    let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    return Unicode.Scalar(value)!
                }
                guard let scalar = Unicode.Scalar(first) else {
                    throw error("unpaired surrogate \\u\(String(first, radix: 16, uppercase: true)) is not a character")
                }
                return scalar
            default:
                throw error("invalid escape \\\(Character(Unicode.Scalar(byte)))", at: index - 2)
            }
        }

        mutating func parseHex4() throws -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw error("invalid hex digit in \\u escape")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }
    }
}
