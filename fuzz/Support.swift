// Shared by every fuzz target (compiled into each one by fuzz/run.sh).

/// An invariant the product promises. A failure stops the run: libFuzzer saves the input as a crash.
@inline(never)
func require(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() { fatalError("fuzz invariant failed: \(message())", file: file, line: line) }
}

/// The input as bytes, copied once.
func inputBytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}

/// Bytes shown in a failure message: printable ASCII as is, the rest as \xNN, cut at 200 bytes.
func show<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    var out = ""
    for byte in bytes.prefix(200) {
        if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\") {
            out.append(Character(Unicode.Scalar(byte)))
        } else {
            out += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }
    }
    return bytes.count > 200 ? out + "..." : out
}

func show(_ text: String) -> String { show(Array(text.utf8)) }
