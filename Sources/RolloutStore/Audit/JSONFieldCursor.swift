import RolloutModel

/// A reader's place in a JSON document that rollout wrote itself, with the members and values its
/// fast readers take (`AuditPlanReader`'s plans, `IndexLineFields`' index lines): each step answers
/// nil or false for anything it does not take exactly, and the reader then leaves the document to the
/// strict parser, so what is accepted never depends on this cursor.
struct JSONFieldCursor: JSONByteCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Consumes `"name":` when the next member is `name`; leaves the cursor where it was otherwise.
    mutating func member(_ name: StaticString) -> Bool {
        skipWhitespace()
        let count = name.utf8CodeUnitCount
        guard index + count + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\""), matches(name, at: index + 1),
            bytes[index + count + 1] == UInt8(ascii: "\"")
        else { return false }
        let start = index
        index += count + 2
        guard take(UInt8(ascii: ":")) else {
            index = start
            return false
        }
        return true
    }

    /// `,` before the next member or element, or nothing before the closing bracket.
    mutating func separator(closing: UInt8) -> Bool? {
        if take(UInt8(ascii: ",")) { return true }
        if take(closing) { return false }
        return nil
    }

    /// A string without escapes; non-ASCII text must be valid UTF-8 (what the strict parser demands).
    mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return ascii ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        return nil
    }

    /// An integer written plainly, with at most 15 digits: always exact, whatever parser reads it.
    mutating func integer() -> Int? {
        skipWhitespace()
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        let start = index
        var value = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            guard index - start < 15 else { return nil }
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - start
        guard digits >= 1, digits == 1 || bytes[start] != UInt8(ascii: "0"), !(negative && value == 0) else {
            return nil
        }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
            return nil
        }
        return negative ? -value : value
    }

    mutating func bool() -> Bool? {
        skipWhitespace()
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    mutating func literal(_ text: StaticString) -> Bool {
        guard matches(text, at: index) else { return false }
        index += text.utf8CodeUnitCount
        return true
    }

    /// Whether the bytes at `position` are `text`'s.
    func matches(_ text: StaticString, at position: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        for k in 0..<count where bytes[position + k] != text.utf8Start[k] { return false }
        return true
    }
}
