/// A JSON document as the strict parser reads it. Objects cannot hold duplicate keys: the parser
/// refuses them, so a dictionary loses nothing.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public static func integer(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }

    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }
    /// The value as an integer, only when it was written as one (no fraction, no exponent).
    public var integerValue: Int? {
        if case .number(let n) = self { return n.integerValue }
        return nil
    }

    /// What kind of value this is, in the words an error message uses.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A JSON number: its IEEE 754 value (what RFC 8785 serialises), its integer value when the text was
/// a plain integer that fits, and the text itself for messages.
public struct JSONNumber: Equatable, Sendable {
    public let value: Double
    public let integerValue: Int?
    public let literal: String

    public init(_ value: Int) {
        self.value = Double(value)
        self.integerValue = value
        self.literal = String(value)
    }

    public init(_ value: Double) {
        self.value = value
        self.integerValue = nil
        self.literal = JSONWriter.formatNumber(value)
    }

    public init(value: Double, integerValue: Int?, literal: String) {
        self.value = value
        self.integerValue = integerValue
        self.literal = literal
    }

    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool { lhs.value == rhs.value }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
