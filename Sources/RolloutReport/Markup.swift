import RolloutModel

/// XHTML built from elements, attributes and text only, so nothing read from the repository can
/// become markup. Text and attribute values are escaped as they go in; tags come only from
/// `element` and `empty`, whose names are literals in the code. Stylesheet text, written in the
/// source and never read from the repository, goes in through `trusted(_:)`, the one way in
/// without escaping.
///
/// A string literal is text too: `"Health: \(verdict)"` escapes both the literal and the `String`
/// interpolated into it, while an interpolated `Markup` (`"by \(Markup.element("q", reason))"`) is
/// kept as built.
struct Markup: Sendable, Equatable, ExpressibleByStringInterpolation {
    typealias Attributes = KeyValuePairs<StaticString, String>

    /// The serialized XHTML.
    private(set) var xml: String

    private init(xml: String) { self.xml = xml }

    /// Text, escaped.
    init(_ text: String) { xml = Markup.escape(text) }

    /// The pieces one after another.
    init(_ pieces: [Markup]) { xml = pieces.map(\.xml).joined() }

    init(stringLiteral text: String) { self.init(text) }

    init(stringInterpolation: StringInterpolation) { xml = stringInterpolation.xml }

    /// `<name attributes>content</name>`, always with both tags, so an element whose text is empty
    /// still reads as one.
    static func element(_ name: StaticString, _ attributes: Attributes, _ content: Markup...) -> Markup {
        Markup(xml: "<\(name)\(render(attributes))>\(content.map(\.xml).joined())</\(name)>")
    }

    /// `<name>content</name>`.
    static func element(_ name: StaticString, _ content: Markup...) -> Markup {
        Markup(xml: "<\(name)>\(content.map(\.xml).joined())</\(name)>")
    }

    /// `<name attributes/>`: an element that has no content.
    static func empty(_ name: StaticString, _ attributes: Attributes) -> Markup {
        Markup(xml: "<\(name)\(render(attributes))/>")
    }

    /// A whole XHTML document: the XML declaration, the HTML doctype, the root element and a final
    /// newline.
    static func document(_ root: Markup) -> Markup {
        Markup(xml: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n\(root.xml)\n")
    }

    /// Text written in this program's source, such as the stylesheet, kept exactly: a `StaticString`
    /// cannot come from a repository or a user.
    static func trusted(_ source: StaticString) -> Markup { Markup(xml: "\(source)") }

    /// Each piece followed by a newline: one line of the page per piece.
    static func lines(_ pieces: [Markup]) -> Markup { Markup(xml: pieces.map { $0.xml + "\n" }.joined()) }

    static let newline = Markup(xml: "\n")

    private static func render(_ attributes: Attributes) -> String {
        attributes.map { " \($0.key)=\"\(escape($0.value))\"" }.joined()
    }

    /// The human-output rule first, so the page is well-formed XML for any input (XML 1.0 forbids
    /// most C0 controls and U+FFFE/U+FFFF, and a reader sees a control as `\u{1B}` rather than not
    /// at all; docs/architecture.md, "Human output"), then XML's five entities.
    private static func escape(_ s: String) -> String {
        var out = ""
        for c in VisibleText.escape(s, lineBreaks: .kept) {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var xml = ""

        init(literalCapacity: Int, interpolationCount: Int) { xml.reserveCapacity(literalCapacity) }

        mutating func appendLiteral(_ literal: String) { xml += Markup.escape(literal) }

        mutating func appendInterpolation(_ markup: Markup) { xml += markup.xml }

        mutating func appendInterpolation(_ text: String) { xml += Markup.escape(text) }

        mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            xml += Markup.escape(value.description)
        }
    }
}
