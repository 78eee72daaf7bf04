/// A reader's place in the bytes of a JSON document, and the steps every reader of them takes the
/// same way: the strict parser, and the fast readers of rollups (`RollupScanner`) and plans
/// (`AuditPlanReader`) that hand anything unusual to it.
public protocol JSONByteCursor {
    var bytes: UnsafeBufferPointer<UInt8> { get }
    var index: Int { get set }
}

extension JSONByteCursor {
    /// Steps over JSON's white space: space, tab, line feed, carriage return.
    @inlinable
    public mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Takes `byte`, after white space, if it is next.
    @inlinable
    public mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Whether nothing but white space is left.
    @inlinable
    public mutating func atEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }
}
