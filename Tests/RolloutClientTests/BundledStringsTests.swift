import Foundation
import XCTest

@testable import RolloutClient

/// The app's own catalogs, loaded in one call at launch, shown the way the app shows them
/// (docs/client.md, "Bundled strings").
final class BundledStringsTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/bundled")
    static let app = fixtures.appendingPathComponent("app")

    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("bundled-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// What a device shows for `key`: the bundled text formatted as the client formats it.
    private func shown(_ strings: BundledStrings, _ locale: String, _ key: String, _ arguments: [String: String] = [:])
        -> String?
    {
        strings.text(key, locale: locale).map {
            MessageFormat.format($0, arguments, language: String(locale.prefix { $0 != "-" }))
        }
    }

    func testTextStringsFilesInUTF8AndUTF16WithEscapesAndComments() {
        let strings = BundledStrings(directory: Self.app)
        XCTAssertEqual(shown(strings, "en", "home.title"), "Welcome")
        XCTAssertEqual(shown(strings, "en", "home.quote"), "She said \"hi\"\nthen left \\ o/")
        XCTAssertEqual(
            shown(strings, "en", "accent", ["0": "Ada"]), "Café Ada's {menu}",
            "\\U escapes, an apostrophe and braces shown as written")
        XCTAssertEqual(shown(strings, "tr", "home.title"), "Hoş geldin", "a UTF-16 file with its byte order mark")
    }

    func testPrintfArgumentsBecomeTheArgumentsPacksUse() {
        let strings = BundledStrings(directory: Self.app)
        XCTAssertEqual(
            strings["en"]?["greeting"], "Hello, {0}! You have {1, number} new messages.",
            "the form rollout pack import stores")
        XCTAssertEqual(
            shown(strings, "en", "greeting", ["0": "Ada", "1": "3"]), "Hello, Ada! You have 3 new messages.")
        XCTAssertEqual(shown(strings, "en", "price", ["0": "4.5"]), "Total: 4.50")
    }

    func testStringsdictPluralsShowTheFormTheAppShows() {
        let strings = BundledStrings(directory: Self.app)
        XCTAssertEqual(
            shown(strings, "en", "files", ["0": "0", "1": "Inbox"]), "No files in Inbox",
            "zero is the number 0 in English too, as Foundation reads it")
        XCTAssertEqual(shown(strings, "en", "files", ["0": "1", "1": "Inbox"]), "1 file in Inbox")
        XCTAssertEqual(shown(strings, "en", "files", ["0": "7", "1": "Inbox"]), "7 files in Inbox")
        XCTAssertEqual(shown(strings, "tr", "files", ["0": "2"]), "2 dosya")
    }

    func testBinaryPropertyListsAsXcodeCompilesThem() throws {
        let folder = scratch.appendingPathComponent("ru.lproj")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let table: [String: Any] = ["home.title": "Добро пожаловать", "greeting": "Привет, %@!"]
        try PropertyListSerialization.data(fromPropertyList: table, format: .binary, options: 0)
            .write(to: folder.appendingPathComponent("Localizable.strings"))
        let plural: [String: Any] = [
            "files": [
                "NSStringLocalizedFormatKey": "%#@n@",
                "n": [
                    "NSStringFormatSpecTypeKey": "NSStringPluralRuleType", "NSStringFormatValueTypeKey": "d",
                    "one": "%d файл", "few": "%d файла", "many": "%d файлов", "other": "%d файла",
                ] as [String: Any],
            ] as [String: Any]
        ]
        let binary = try PropertyListSerialization.data(fromPropertyList: plural, format: .binary, options: 0)
        XCTAssertEqual(Array(binary.prefix(8)), Array("bplist00".utf8))
        try binary.write(to: folder.appendingPathComponent("Localizable.stringsdict"))

        let strings = BundledStrings(directory: scratch)
        XCTAssertEqual(strings.problems, [])
        XCTAssertEqual(shown(strings, "ru", "home.title"), "Добро пожаловать")
        XCTAssertEqual(shown(strings, "ru", "greeting", ["0": "Ада"]), "Привет, Ада!")
        XCTAssertEqual(shown(strings, "ru", "files", ["0": "1"]), "1 файл")
        XCTAssertEqual(shown(strings, "ru", "files", ["0": "3"]), "3 файла")
        XCTAssertEqual(shown(strings, "ru", "files", ["0": "5"]), "5 файлов")
        XCTAssertEqual(shown(strings, "ru", "files", ["0": "21"]), "21 файл")
    }

    /// An app with many languages reads only the tables its locales can show at launch.
    func testOnlyTheTablesOfTheGivenLocalesAreRead() {
        let strings = BundledStrings(directory: Self.app, locales: ["tr-TR", "en-US"])
        XCTAssertEqual(strings.locales, ["en", "tr"], "tr for tr-TR, en for en-US and Base; not pt-BR or zh-Hans")
        XCTAssertEqual(
            strings.text("home.title", locale: "tr-TR"),
            BundledStrings(directory: Self.app).text("home.title", locale: "tr-TR"))
        XCTAssertEqual(strings["en"]?["only.base"], "From Base")
        XCTAssertEqual(
            BundledStrings(directory: Self.app, locales: ["pt_BR"]).locales, ["en", "pt-BR"],
            "Base fills en; pt_BR spelled as a device may")
        let folder = Self.fixtures.appendingPathComponent("json-folder")
        XCTAssertEqual(BundledStrings(directory: folder, locales: ["tr-TR"]).locales, ["tr-TR"])
    }

    func testLocaleFolderNamesAreCanonicalAndBaseFillsTheDevelopmentLanguage() {
        let strings = BundledStrings(directory: Self.app)
        XCTAssertEqual(strings.locales, ["en", "pt-BR", "tr", "zh-Hans"], "de.lproj does not parse: no de")
        XCTAssertEqual(strings["pt-BR"]?["home.title"], "Bem-vindo", "pt_BR.lproj")
        XCTAssertEqual(strings["zh-Hans"]?["home.title"], "欢迎")
        XCTAssertEqual(strings["en"]?["home.title"], "Welcome", "en.lproj wins over Base.lproj")
        XCTAssertEqual(strings["en"]?["only.base"], "From Base", "Base.lproj fills the development language's gaps")
        XCTAssertEqual(BundledStrings(directory: Self.app, baseLocale: "tr")["tr"]?["only.base"], "From Base")
        XCTAssertEqual(strings.text("home.title", locale: "en-US"), "Welcome", "en-US reads en.lproj, as iOS does")
        XCTAssertEqual(strings.text("home.title", locale: "zh-Hans-CN"), "欢迎")
        XCTAssertNil(strings.text("home.title", locale: "fr-FR"))
    }

    func testABadFileIsListedAndEverythingElseLoads() {
        let strings = BundledStrings(directory: Self.app)
        let byFile = Dictionary(grouping: strings.problems, by: \.file)
        XCTAssertNotNil(byFile["de.lproj/Localizable.strings"], "a malformed file: \(strings.problems)")
        XCTAssertNil(strings["de"]?["home.title"], "a file that does not parse gives nothing")
        XCTAssertNotNil(byFile["Klingon.lproj"], "a folder that is not a locale")
        XCTAssertEqual(
            byFile["en.lproj/Localizable.stringsdict"]?.map(\.key), ["width"], "a variable-width rule is not a plural")
        XCTAssertEqual(byFile["en.lproj/Localizable.strings"]?.map(\.key), ["padded"])
        XCTAssertEqual(
            MessageFormat.format(strings["en"]?["padded"] ?? "", ["1": "7"], language: "en"), "Order %05d",
            "a conversion packs cannot write is shown as written, not filled")
        XCTAssertNil(byFile["README.md"], "other files of the folder are not catalogs")
        XCTAssertEqual(
            strings["en"]?["files"]?.hasPrefix("{0, plural,"), true,
            "the stringsdict entry wins over the .strings value")
    }

    func testBundle() throws {
        let copy = scratch.appendingPathComponent("App.bundle")
        try FileManager.default.copyItem(at: Self.app, to: copy)
        let bundle = try XCTUnwrap(Bundle(url: copy))
        let strings = BundledStrings(bundle: bundle)
        XCTAssertEqual(strings.text("home.title", locale: "tr-TR"), "Hoş geldin")
        XCTAssertEqual(strings.text("only.base", locale: "en"), "From Base")
        XCTAssertEqual(strings.locales, BundledStrings(directory: Self.app).locales)
    }

    func testStringCatalog() {
        let strings = BundledStrings(xcstrings: Self.fixtures.appendingPathComponent("Localizable.xcstrings"))
        XCTAssertEqual(
            shown(strings, "en", "Cancel"), "Cancel", "a key with no source value is its own text, as the app shows it")
        XCTAssertEqual(shown(strings, "tr", "Cancel"), "Vazgeç")
        XCTAssertEqual(shown(strings, "tr", "home.title"), "Hoş geldin", "needs_review text ships in the app")
        XCTAssertEqual(shown(strings, "en", "photos", ["0": "Ada", "1": "1"]), "Ada shared 1 photo")
        XCTAssertEqual(shown(strings, "en", "photos", ["0": "Ada", "1": "4"]), "Ada shared 4 photos")
        XCTAssertEqual(shown(strings, "ru", "items", ["0": "2"]), "2 предмета")
        XCTAssertEqual(shown(strings, "ru", "items", ["0": "11"]), "11 предметов")
        XCTAssertNil(strings["en"]?["device"])
        XCTAssertEqual(strings.problems.map(\.key), ["device"])
    }

    func testJSONCatalogs() {
        let one = BundledStrings(jsonCatalog: Self.fixtures.appendingPathComponent("catalog.json"))
        XCTAssertEqual(one.strings, ["en": ["home.title": "Welcome"], "pt-BR": ["home.title": "Bem-vindo"]])
        XCTAssertEqual(one.problems.map(\.key), ["Elvish"])

        let folder = BundledStrings(jsonCatalog: Self.fixtures.appendingPathComponent("json-folder"))
        XCTAssertEqual(folder.strings, ["en": ["home.title": "Welcome"], "tr-TR": ["home.title": "Hoş geldin"]])
        XCTAssertEqual(Set(folder.problems.map(\.file)), ["de.json", "en.json", "notes.json"], "\(folder.problems)")
        XCTAssertEqual(
            BundledStrings(directory: Self.fixtures.appendingPathComponent("json-folder")), folder,
            "what rollout device --bundled reads")

        let missing = BundledStrings(jsonCatalog: scratch.appendingPathComponent("nope.json"))
        XCTAssertEqual(missing.strings, [:])
        XCTAssertEqual(missing.problems.count, 1)
    }

    // MARK: - Shapes from real catalogs (docs/client.md, "Real catalogs")

    static let shapes = fixtures.appendingPathComponent("shapes")

    /// A form that uses another variable by position (`%2$#@devices@`), as DuckDuckGo's
    /// catalogs do in 25 languages: it was left out, and the app showed nothing for the key.
    func testAStringsdictFormMayUseAnotherVariable() {
        let strings = BundledStrings(directory: Self.shapes, device: "other")
        XCTAssertEqual(
            shown(strings, "en", "delete.body", ["0": "1", "1": "1"]), "Your note will be deleted from this device.")
        XCTAssertEqual(
            shown(strings, "en", "delete.body", ["0": "5", "1": "3"]), "Your 5 notes will be deleted from 3 devices.")
        XCTAssertEqual(
            shown(strings, "en", "delete.body", ["0": "2", "1": "1"]), "Your 2 notes will be deleted from this device.")
        XCTAssertEqual(
            shown(strings, "lv", "delete.body", ["0": "0", "1": "0"]), "0 piezīmes tiks dzēstas no 0 ierīcēm.")
        XCTAssertEqual(
            shown(strings, "lv", "delete.body", ["0": "21", "1": "1"]), "21 piezīme tiks dzēsta no 1 ierīces.")
        XCTAssertNil(strings["en"]?["loop"], "a variable that names itself")
        XCTAssertEqual(strings.problems.filter { $0.key == "loop" }.count, 1, "\(strings.problems)")
    }

    /// `NSStringDeviceSpecificRuleType`, what Xcode compiles String Catalog device variations into:
    /// the device's variant, else `other`, else the `.strings` fallback Xcode writes beside it.
    func testDeviceRulesGiveTheDevicesVariant() {
        XCTAssertEqual(BundledStrings.currentDevice, "other", "Linux, where rollout device runs")
        let phone = BundledStrings(directory: Self.shapes, device: "iphone")
        XCTAssertEqual(shown(phone, "en", "hint", ["0": "Ada"]), "Tap Ada to open it")
        XCTAssertEqual(shown(phone, "en", "hint.other"), "Choose this")
        XCTAssertEqual(shown(phone, "en", "synced", ["0": "1"]), "1 photo on this iPhone")
        XCTAssertEqual(shown(phone, "en", "synced", ["0": "3"]), "3 photos on this iPhone")
        XCTAssertNil(phone["en"]?["mac.only"])
        XCTAssertEqual(phone.problems.compactMap(\.key).sorted(), ["loop", "mac.only"], "\(phone.problems)")

        let tablet = BundledStrings(directory: Self.shapes, device: "ipad")
        XCTAssertEqual(
            shown(tablet, "en", "hint", ["0": "Ada"]), "Open Ada",
            "no variant: the .strings fallback, as Foundation reads it")
        XCTAssertEqual(shown(tablet, "en", "synced", ["0": "3"]), "3 photos synced")

        let mac = BundledStrings(directory: Self.shapes, device: "mac")
        XCTAssertEqual(shown(mac, "en", "hint", ["0": "Ada"]), "Click Ada to open it")
        XCTAssertEqual(shown(mac, "en", "mac.only"), "Menu bar")
        XCTAssertEqual(mac.problems.compactMap(\.key), ["loop"])
    }

    /// String Catalog device variations, as Ice Cubes has them: they were left out in every language.
    func testStringCatalogDeviceVariations() {
        let url = Self.fixtures.appendingPathComponent("shapes.xcstrings")
        let phone = BundledStrings(xcstrings: url, device: "iphone")
        XCTAssertEqual(shown(phone, "en", "hint", ["0": "Ada"]), "Tap Ada to open it")
        XCTAssertEqual(shown(phone, "tr", "hint", ["0": "Ada"]), "Açmak için Ada öğesine dokun")
        XCTAssertEqual(
            shown(phone, "en", "synced", ["0": "1"]), "1 photo on this iPhone",
            "substitutions stay beside the variations")
        XCTAssertEqual(phone.problems, [])

        let other = BundledStrings(xcstrings: url)
        XCTAssertEqual(shown(other, "en", "hint", ["0": "Ada"]), "Open Ada")
        XCTAssertEqual(shown(other, "en", "synced", ["0": "3"]), "3 photos synced")
        XCTAssertNil(other["tr"]?["hint"], "no variant for this device, and no other")
        XCTAssertEqual(other.problems.map(\.key), ["hint"])
    }

    func testAClientStartsOnTheBundleItLoaded() throws {
        var options = RolloutClient.Options()
        options.installID = "phone"
        let client = RolloutClient(
            bundled: BundledStrings(directory: Self.app), cacheDirectory: scratch.appendingPathComponent("cache"),
            manifestURL: URL(string: "https://cdn.example.com/site/index.json")!, publicKey: "ed25519:AAAA",
            appVersion: "4.8.1",
            region: "TR", locale: "tr-TR", options: options)
        XCTAssertEqual(client.string("home.title"), "Hoş geldin", "tr-TR reads tr.lproj")
        XCTAssertEqual(client.string("greeting", ["0": "Ada"]), "Merhaba, Ada!")
        XCTAssertEqual(
            client.string("home.quote"), "She said \"hi\"\nthen left \\ o/", "the default locale en-US reads en.lproj")
    }
}
