import RolloutCrypto
import RolloutModel
import XCTest

/// The one check of a pack file against its manifest entry, which a device makes before it uses a
/// pack and `rollout verify-site` makes on every pack of a site (docs/client.md, Start-up).
final class PackEntryCheckTests: XCTestCase {
    let id = PackID(locale: "tr-TR", contentVersion: 18)
    let pack = Pack(
        locale: "tr-TR", contentVersion: 18, minAppVersion: AppVersion("4.0")!, strings: ["title": "Başlık"])

    private func entry(for bytes: [UInt8], checksum: String? = nil, schemaVersion: Int = 2) -> LocaleManifest.PackEntry
    {
        LocaleManifest.PackEntry(
            url: "packs/tr-TR/18.json", bytes: bytes.count, sha256: SHA256.hex(bytes),
            checksum: checksum ?? pack.checksum,
            minAppVersion: "4.0", schemaVersion: schemaVersion)
    }

    func testThePackItsEntryListsHasNoProblem() {
        let bytes = pack.storedBytes
        let checked = PackEntryCheck(bytes, entry: entry(for: bytes), id: id, source: "tr-TR@18")
        XCTAssertEqual(checked.problems, [])
        XCTAssertEqual(checked.parsed?.pack, pack)
    }

    func testOtherBytesThanTheEntrysSizeOrDigestAreTheOnlyProblem() {
        let bytes = pack.storedBytes
        var changed = bytes
        changed[changed.count - 2] = UInt8(ascii: " ")
        let checked = PackEntryCheck(changed, entry: entry(for: bytes, schemaVersion: 3), id: id, source: "tr-TR@18")
        XCTAssertEqual(checked.problems, [.sizeOrDigest])
        XCTAssertNil(checked.parsed)
        XCTAssertEqual(
            PackEntryCheck(bytes + [0x0A], entry: entry(for: bytes), id: id, source: "x").problems, [.sizeOrDigest])
    }

    func testAnEntrySchemaTheReaderDoesNotUnderstandComesFirst() {
        let bytes = pack.storedBytes
        let checked = PackEntryCheck(bytes, entry: entry(for: bytes, schemaVersion: 3), id: id, source: "tr-TR@18")
        XCTAssertEqual(checked.problems, [.entrySchema(3)])
        let narrower = PackEntryCheck(bytes, entry: entry(for: bytes), id: id, source: "tr-TR@18", schemaVersions: [3])
        XCTAssertEqual(narrower.problems, [.entrySchema(2), .identity(id, schemaVersion: 2)])
    }

    func testAFileThatIsNotAPackCarriesTheParsersErrorNamingTheSource() {
        let bytes = Array("{\"locale\": \"tr-TR\"}".utf8)
        let checked = PackEntryCheck(bytes, entry: entry(for: bytes), id: id, source: "packs/tr-TR/18.json")
        guard case .unreadable(let error) = checked.problems.first else { return XCTFail("\(checked.problems)") }
        XCTAssertEqual(checked.problems.count, 1)
        XCTAssertTrue(error.message.hasPrefix("packs/tr-TR/18.json: "), error.message)
    }

    func testAChecksumOtherThanTheEntrysOrNoneDeclared() {
        let bytes = pack.storedBytes
        let other = "sha256:" + String(repeating: "0", count: 64)
        XCTAssertEqual(
            PackEntryCheck(bytes, entry: entry(for: bytes, checksum: other), id: id, source: "x").problems,
            [.checksum(declared: pack.checksum, actual: pack.checksum)])
        let undeclared = JSONWriter.pretty(pack.jsonValue)
        XCTAssertEqual(
            PackEntryCheck(undeclared, entry: entry(for: undeclared), id: id, source: "x").problems,
            [.checksum(declared: nil, actual: pack.checksum)])
    }

    func testAPackThatSaysItIsAnotherPack() {
        let bytes = pack.storedBytes
        let expected = PackID(locale: "tr-TR", contentVersion: 19)
        XCTAssertEqual(
            PackEntryCheck(bytes, entry: entry(for: bytes), id: expected, source: "x").problems,
            [.identity(id, schemaVersion: 2)])
    }
}
