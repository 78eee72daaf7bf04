/// Serialises `JSONValue`s deterministically.
///
/// `canonical` is RFC 8785 (JSON Canonicalization Scheme): members sorted by their UTF-16 code units,
/// no insignificant whitespace, minimal string escaping, numbers in ECMAScript `Number.prototype.toString`
/// form. `pretty` uses the same member order and escaping with two-space indentation, for files
/// people read; both give the same bytes for the same value, every time.
public enum JSONWriter {
    public static func canonical(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        write(value, into: &out, indent: nil, level: 0)
        return out
    }

    public static func pretty(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        write(value, into: &out, indent: 2, level: 0)
        out.append(0x0A)
        return out
    }

    public static func prettyString(_ value: JSONValue) -> String { String(decoding: pretty(value), as: UTF8.self) }
    public static func canonicalString(_ value: JSONValue) -> String {
        String(decoding: canonical(value), as: UTF8.self)
    }

    /// RFC 8785 section 3.2.3: sort by UTF-16 code units, not by Unicode scalars or UTF-8 bytes.
    public static func sortedKeys<V>(_ object: [String: V]) -> [String] {
        // Each key is transcoded once; comparing String.UTF16View directly transcodes on every comparison.
        object.keys.map { (key: $0, units: Array($0.utf16)) }
            .sorted { $0.units.lexicographicallyPrecedes($1.units) }
            .map(\.key)
    }

    private static func write(_ value: JSONValue, into out: inout [UInt8], indent: Int?, level: Int) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: formatNumber(n.value).utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent: indent, level: level + 1)
                write(item, into: &out, indent: indent, level: level + 1)
            }
            if !items.isEmpty { newline(&out, indent: indent, level: level) }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, key) in sortedKeys(members).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent: indent, level: level + 1)
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                write(members[key]!, into: &out, indent: indent, level: level + 1)
            }
            if !members.isEmpty { newline(&out, indent: indent, level: level) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: inout [UInt8], indent: Int?, level: Int) {
        guard let indent else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            // Copy runs that need no escaping in one go; only quotes, backslashes and controls are escaped.
            var runStart = 0
            for (index, byte) in bytes.enumerated()
            where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
                case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
                case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                default:
                    out.append(contentsOf: "\\u00".utf8)
                    out.append(hexDigits[Int(byte >> 4)])
                    out.append(hexDigits[Int(byte & 0x0F)])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// ECMAScript Number::toString for finite doubles, as RFC 8785 section 3.2.2.3 requires.
    /// Swift's `description` already yields the shortest round-tripping digits; only the layout differs.
    public static func formatNumber(_ value: Double) -> String {
        precondition(value.isFinite, "JSON has no representation for \(value)")
        if value == 0 { return "0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        let negative = value < 0
        let (digits, exponent) = shortestDigits(abs(value))
        // value = 0.d1d2...dk x 10^n, in the notation of ECMA-262 section 6.1.6.1.20.
        let k = digits.count
        let n = exponent
        var text: String
        if k <= n && n <= 21 {
            text = digits + String(repeating: "0", count: n - k)
        } else if 0 < n && n <= 21 {
            let split = digits.index(digits.startIndex, offsetBy: n)
            text = digits[..<split] + "." + digits[split...]
        } else if -6 < n && n <= 0 {
            text = "0." + String(repeating: "0", count: -n) + digits
        } else {
            let e = n - 1
            let sign = e < 0 ? "-" : "+"
            let mantissa = k == 1 ? digits : String(digits.first!) + "." + digits.dropFirst()
            text = mantissa + "e" + sign + String(abs(e))
        }
        return negative ? "-" + text : text
    }

    /// The shortest decimal digits of a positive double and the exponent n such that value = 0.digits x 10^n.
    private static func shortestDigits(_ value: Double) -> (String, Int) {
        let description = value.description  // e.g. "1.2345e-07", "123.45", "1e+21"
        var mantissa = Substring(description)
        var exponent = 0
        if let e = description.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = description[..<e]
            exponent = Int(String(description[description.index(after: e)...].filter { $0 != "+" }))!
        }
        var integerPart = mantissa
        var fractionPart: Substring = ""
        if let dot = mantissa.firstIndex(of: ".") {
            integerPart = mantissa[..<dot]
            fractionPart = mantissa[mantissa.index(after: dot)...]
        }
        var digits = String(integerPart) + fractionPart
        var pointPosition = integerPart.count + exponent
        while digits.first == "0" && digits.count > 1 {
            digits.removeFirst()
            pointPosition -= 1
        }
        while digits.last == "0" && digits.count > 1 { digits.removeLast() }
        return (digits, pointPosition)
    }
}
