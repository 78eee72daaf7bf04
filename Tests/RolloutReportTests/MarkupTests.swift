import XCTest

@testable import RolloutReport

/// The report's builder: whatever text goes in, only the builder's own tags come out.
final class MarkupTests: XCTestCase {
    func testTextIsEscapedSoItCannotBecomeMarkup() {
        XCTAssertEqual(
            Markup(#"<script>alert("x")</script> Tom & 'Jerry'"#).xml,
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Tom &amp; &#39;Jerry&#39;")
    }

    func testControlCharactersAndWhatXMLForbidsShowVisiblyWhileNewlinesStay() {
        XCTAssertEqual(
            Markup("a\u{1B}[31m\u{7}\nb\t\u{FFFE}\u{FFFF}").xml, #"a\u{1B}[31m\u{7}"# + "\n" + #"b\t\u{FFFE}\u{FFFF}"#)
        XCTAssertEqual(
            Markup("\u{202E}txt.exe").xml, #"\u{202E}txt.exe"#, "a bidi override cannot reorder what a reader sees")
    }

    func testEmojiAndRightToLeftTextPassUnchanged() {
        let text = "🚀👩‍👩‍👧 עברית שלום مرحبا \u{200F}"
        XCTAssertEqual(Markup(text).xml, text)
    }

    func testAttributeValuesAreEscapedAndKeptInOrder() {
        let element = Markup.element("p", ["id": "a&b", "class": #"x" onclick="alert(1)"#], "t")
        XCTAssertEqual(element.xml, #"<p id="a&amp;b" class="x&quot; onclick=&quot;alert(1)">t</p>"#)
        XCTAssertEqual(Markup.empty("line", ["x1": "64.0", "y1": "<"]).xml, #"<line x1="64.0" y1="&lt;"/>"#)
    }

    func testElementsNestAndAnEmptyElementKeepsBothTags() {
        let table = Markup.element(
            "table", ["class": "checks"], .element("tr", .element("td", "1 < 2"), .element("td")), .newline,
            .element("h3", ""))
        XCTAssertEqual(table.xml, "<table class=\"checks\"><tr><td>1 &lt; 2</td><td></td></tr>\n<h3></h3></table>")
    }

    func testInterpolationEscapesLiteralsAndStringsButKeepsBuiltMarkup() {
        let reason = "<b>bold</b>"
        let markup: Markup = "a < b: \(Markup.element("q", Markup(reason))) \(reason) \(42) \(Markup(["x", "&"]))"
        XCTAssertEqual(markup.xml, "a &lt; b: <q>&lt;b&gt;bold&lt;/b&gt;</q> &lt;b&gt;bold&lt;/b&gt; 42 x&amp;")
    }

    func testLinesDocumentAndTrustedSource() {
        XCTAssertEqual(Markup.lines(["a", "<"]).xml, "a\n&lt;\n")
        XCTAssertEqual(
            Markup.document(.element("html", .element("style", .trusted(#"p{font:"Segoe UI"}"#)))).xml,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n<html><style>p{font:\"Segoe UI\"}</style></html>\n"
        )
    }
}
