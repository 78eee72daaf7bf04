import Foundation

// embed-template OUTPUT FILE...: writes a Swift file holding each FILE's text, keyed by its name.
let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: embed-template OUTPUT FILE...\n".utf8))
    exit(64)
}

func literal(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": out += "\\\\"
        case "\"": out += "\\\""
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}

var source = "// Generated from repo-template/ by the EmbedTemplate plugin. Do not edit.\n\n"
source += "enum EmbeddedTemplate {\n    static let files: [(name: String, text: String)] = [\n"
for path in arguments.dropFirst() {
    let url = URL(fileURLWithPath: path)
    guard let text = try? String(contentsOf: url, encoding: .utf8) else {
        FileHandle.standardError.write(Data("embed-template: \(path) is not readable UTF-8 text\n".utf8))
        exit(65)
    }
    source += "        (\(literal(url.lastPathComponent)), \(literal(text))),\n"
}
source += "    ]\n}\n"
do {
    try source.write(toFile: output, atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("embed-template: cannot write \(output): \(error)\n".utf8))
    exit(73)
}
