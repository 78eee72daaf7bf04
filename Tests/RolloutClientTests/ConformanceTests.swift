import Foundation
import RolloutClient
import RolloutCrypto
import RolloutModel
import XCTest

/// The Swift client passes the conformance kit every port must pass (docs/conformance.md):
/// Tests/Fixtures/conformance, as `rollout conformance write` generates it.
final class ConformanceTests: XCTestCase {
    private func vectors(_ name: String) throws -> [String: JSONValue] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/conformance/\(name)")
        return try XCTUnwrap(StrictJSONParser.parse([UInt8](try Data(contentsOf: url))).objectValue, name)
    }

    private func list(_ value: JSONValue?) -> [JSONValue] { value?.arrayValue ?? [] }
    private func text(_ value: JSONValue?) -> String { value?.stringValue ?? "" }
    private func texts(_ value: JSONValue?) -> [String] { list(value).compactMap(\.stringValue) }
    private func bytes(_ value: JSONValue?) -> [UInt8] { Base64.decode(text(value)) ?? [] }

    func testEveryDeviceLandsInTheBucketTheVectorsSay() throws {
        let cases = list(try vectors("bucketing.json")["vectors"])
        XCTAssertGreaterThan(cases.count, 40)
        for v in cases.compactMap(\.objectValue) {
            XCTAssertEqual(
                Bucketing.bucket(installID: text(v["installId"]), salt: text(v["salt"])), v["bucket"]?.integerValue,
                "\(v)")
        }
    }

    func testVersionsAndRangesParseAndCompareAsTheVectorsSay() throws {
        let file = try vectors("version-ranges.json")
        for v in list(file["versions"]).compactMap(\.objectValue) {
            let parsed = AppVersion(text(v["text"]))
            XCTAssertEqual(parsed != nil, v["valid"]?.boolValue, "version \(text(v["text"]))")
            if let parsed { XCTAssertEqual(parsed.normalized, text(v["normalized"])) }
        }
        for v in list(file["compare"]).compactMap(\.objectValue) {
            let a = try XCTUnwrap(AppVersion(text(v["a"])))
            let b = try XCTUnwrap(AppVersion(text(v["b"])))
            XCTAssertEqual(a < b ? -1 : (a == b ? 0 : 1), v["order"]?.integerValue, "\(a) vs \(b)")
        }
        for v in list(file["ranges"]).compactMap(\.objectValue) {
            let range = try? VersionRange.parse(text(v["text"]))
            XCTAssertEqual(range != nil, v["valid"]?.boolValue, "range \(text(v["text"]))")
            guard let range else { continue }
            for probe in texts(v["contains"]) {
                XCTAssertTrue(range.contains(AppVersion(probe)!), "\(range) contains \(probe)")
            }
            for probe in texts(v["excludes"]) {
                XCTAssertFalse(range.contains(AppVersion(probe)!), "\(range) excludes \(probe)")
            }
        }
    }

    func testEveryPlanResolvesAsTheVectorsSayIncludingRangesADeviceCannotRead() throws {
        let file = try vectors("resolution.json")
        var plans: [String: Plan] = [:]
        for (name, wire) in file["plans"]?.objectValue ?? [:] {
            plans[name] = try Plan.parse(LocaleManifest.readableRanges(wire).0, source: name)
        }
        let cases = list(file["cases"]).compactMap(\.objectValue)
        XCTAssertGreaterThan(cases.count, 300)
        for c in cases {
            let plan = try XCTUnwrap(plans[text(c["plan"])])
            let outcome = Resolution.outcome(
                plan, region: text(c["region"]), appVersion: AppVersion(text(c["appVersion"])),
                installID: text(c["installId"]))
            let expected: Resolution.Outcome = c["contentVersion"]?.integerValue.map { .pack($0) } ?? .bundled
            XCTAssertEqual(outcome, expected, "\(c)")
        }
    }

    func testTheChainOfListedAndUnlistedLocales() throws {
        let file = try vectors("chains.json")
        for c in list(file["cases"]).compactMap(\.objectValue) {
            let wire = try XCTUnwrap(file["indexes"]?.objectValue?[text(c["index"])]?.objectValue)
            var entries: [String: SiteIndex.Entry] = [:]
            for (locale, item) in wire["locales"]?.objectValue ?? [:] {
                let o = item.objectValue ?? [:]
                entries[locale] = SiteIndex.Entry(
                    sequence: 1, manifest: SiteLayout.manifest(locale), chain: texts(o["chain"]),
                    fallbackChain: o["fallbackChain"].map(texts))
            }
            let index = SiteIndex(
                sequence: 1, time: Timestamp(seconds: 0), defaultLocale: text(wire["defaultLocale"]), locales: entries)
            XCTAssertEqual(
                index.chain(for: text(c["locale"])), texts(c["chain"]), "\(text(c["index"])) \(text(c["locale"]))")
        }
    }

    func testOnlyTheExactSignatureFormVerifies() throws {
        let file = try vectors("signatures.json")
        let key = try XCTUnwrap(Ed25519.PublicKey(text(file["publicKey"])))
        let other = try XCTUnwrap(Ed25519.PublicKey(text(file["otherPublicKey"])))
        let cases = list(file["cases"]).compactMap(\.objectValue)
        XCTAssertGreaterThan(cases.count, 10)
        for c in cases {
            XCTAssertEqual(
                DetachedSignature.verify(bytes(c["sig"]), over: bytes(c["file"]), with: key), c["valid"]?.boolValue,
                text(c["name"]))
        }
        let good = try XCTUnwrap(cases.first { text($0["name"]) == "good" })
        XCTAssertFalse(
            DetachedSignature.verify(bytes(good["sig"]), over: bytes(good["file"]), with: other),
            "the good signature under another key")
    }

    func testIndexesAndManifestsAreAcceptedOrRefusedAsTheWireRulesSay() throws {
        for c in list(try vectors("documents.json")["cases"]).compactMap(\.objectValue) {
            let document = Array(text(c["document"]).utf8)
            let accepted =
                text(c["kind"]) == "index"
                ? (try? SiteIndex.parse(document, source: "index.json")) != nil
                : (try? LocaleManifest.parse(document, source: "manifests/tr-TR.json")) != nil
            XCTAssertEqual(accepted, c["accepted"]?.boolValue, "\(text(c["kind"])): \(text(c["name"]))")
        }
    }

    /// A device on a key list, in the order docs/conformance.md gives: the key list (walking root
    /// changes when the roots it trusts did not sign it; the built-in roots, not the held list's, when
    /// the app's roots changed since it accepted that list), then the index's publishing key at
    /// `now`, then the index's sequence and expiry.
    func testEveryTrustCaseIsDecidedAsTheVectorsSay() throws {
        let cases = list(try vectors("trust.json")["cases"]).compactMap(\.objectValue)
        XCTAssertGreaterThan(cases.count, 25)
        for c in cases {
            let name = text(c["name"])
            let device = c["device"]?.objectValue ?? [:]
            let roots = KeyList.Roots(
                keys: texts(device["rootKeys"]).compactMap { Ed25519.PublicKey($0) },
                threshold: device["threshold"]?.integerValue ?? 1)
            let held = try device["keyList"]?.stringValue.map {
                try KeyList.parse(bytes(.string($0)), source: "the held keys.json")
            }
            let anchoredTo = device["anchoredTo"]?.objectValue.map { recorded in
                KeyList.Roots(
                    keys: (recorded["keys"]?.objectValue ?? [:]).values.compactMap {
                        $0.stringValue.flatMap { Ed25519.PublicKey($0) }
                    },
                    threshold: recorded["threshold"]?.integerValue ?? 1)
            }
            let anchor = KeyChain.Anchor(
                roots: roots, list: held, minimumVersion: device["minimumKeysVersion"]?.integerValue ?? 0,
                anchoredTo: anchoredTo)
            let now = try XCTUnwrap(Timestamp(iso8601: text(c["now"])), name)
            let site = (c["site"]?.objectValue ?? [:]).compactMapValues { $0.stringValue.flatMap(Base64.decode) }
            func signed(_ path: String) -> SignedFile {
                SignedFile(path: path, bytes: site[path] ?? [], signatures: site[SiteLayout.signatures(of: path)] ?? [])
            }
            var holds = held?.version
            let outcome: JSONValue
            do {
                let latest = signed(SiteLayout.keys)
                var rotations: [Int: SignedFile] = [:]
                for version in KeyChain.rotationsNeeded(latest, anchor: anchor)
                where site[SiteLayout.keys(version: version)] != nil {
                    rotations[version] = signed(SiteLayout.keys(version: version))
                }
                let keys = try KeyChain.accept(latest, rotations: rotations, anchor: anchor)
                holds = keys.version
                let indexFile = signed(SiteLayout.index)
                try KeyChain.publisher(of: indexFile, list: keys, now: now)
                guard let index = try? SiteIndex.parse(indexFile.bytes, source: SiteLayout.index) else {
                    throw TrustFailure.damaged(file: SiteLayout.index, why: "not an index")
                }
                try KeyChain.checkIndex(
                    index, now: now, accepted: device["acceptedIndexSequence"]?.integerValue ?? 0,
                    builtInMinimum: device["minimumIndexSequence"]?.integerValue ?? 0, requireExpiry: true)
                outcome = [
                    "accepted": ["keysVersion": .integer(keys.version), "indexSequence": .integer(index.sequence)]
                ]
            } catch let failure as TrustFailure {
                outcome = ["refused": .string(failure.code), "keysVersion": holds.map { .integer($0) } ?? .null]
            }
            XCTAssertEqual(outcome, c["expected"], name)
        }
    }

    private func client(
        bundled: [String: [String: String]], site: SiteTransport, publicKey: String, device: [String: JSONValue],
        locale: String? = nil
    ) -> RolloutClient {
        var options = RolloutClient.Options()
        options.transport = site
        options.installID = text(device["installId"])
        options.defaultLocale = text(device["defaultLocale"])
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: cache) }
        return RolloutClient(
            bundled: bundled, cacheDirectory: cache, manifestURL: URL(string: "https://site.example/app/index.json")!,
            publicKey: publicKey,
            appVersion: text(device["appVersion"]), region: text(device["region"]),
            locale: locale ?? text(device["locale"]), options: options)
    }

    private func bundled(_ value: JSONValue?) -> [String: [String: String]] {
        (value?.objectValue ?? [:]).mapValues { ($0.objectValue ?? [:]).mapValues { $0.stringValue ?? "" } }
    }

    func testPlaceholdersAndPluralsFormatAsTheVectorsSay() throws {
        for c in list(try vectors("formatting.json")["cases"]).compactMap(\.objectValue) {
            let language = text(c["language"])
            let device = client(
                bundled: [language: ["message": text(c["message"])]], site: SiteTransport(nil), publicKey: "",
                device: ["defaultLocale": .string(language)],
                locale: language)
            let arguments = (c["arguments"]?.objectValue ?? [:]).mapValues { $0.stringValue ?? "" }
            XCTAssertEqual(
                device.string("message", arguments), text(c["expected"]), "\(text(c["message"])) \(arguments)")
        }
    }

    func testEachLocaleOfTheChainGivesItsPackThenItsBundledStrings() async throws {
        let file = try vectors("lookup.json")
        let site = SiteTransport(file["site"])
        for c in list(file["cases"]).compactMap(\.objectValue) {
            let device = client(
                bundled: bundled(file["bundled"]), site: site, publicKey: text(file["publicKey"]),
                device: file["device"]?.objectValue ?? [:],
                locale: text(c["locale"]))
            let result = await device.refresh(force: true)
            guard case .staged = result else { return XCTFail("\(text(c["name"])): \(result)") }
            device.activatePending()
            XCTAssertEqual(device.string(text(c["key"])), text(c["expected"]), text(c["name"]))
        }
    }

    func testRefreshRoundsGiveTheDeviceTheStringsTheVectorsSay() async throws {
        let file = try vectors("refresh.json")
        let site = SiteTransport(nil)
        let device = client(
            bundled: bundled(file["bundled"]), site: site, publicKey: text(file["publicKey"]),
            device: file["device"]?.objectValue ?? [:])
        let rounds = list(file["rounds"]).compactMap(\.objectValue)
        XCTAssertGreaterThan(rounds.count, 5)
        for round in rounds {
            site.serve(round["site"])
            let result = await device.refresh(force: true)
            check(result, against: round)
            device.activatePending()
            for (key, expected) in round["strings"]?.objectValue ?? [:] {
                XCTAssertEqual(device.string(key), expected.stringValue, "\(text(round["name"])): \(key)")
            }
        }
    }

    /// A round's `result` and `reasons` (refresh.json and limits.json): the kind of result, and the
    /// distinct reason codes of its failures, sorted.
    private func check(_ result: RolloutClient.RefreshResult, against round: [String: JSONValue]) {
        let kind: String
        let reasons: [RolloutClient.FailureReason]
        switch result {
        case .staged, .upToDate: (kind, reasons) = ("accepted", [])
        case .partial(_, _, let failures): (kind, reasons) = ("partial", failures.map(\.reason))
        case .failed(let failure): (kind, reasons) = ("refused", [failure.reason])
        default: (kind, reasons) = ("refused", [])
        }
        XCTAssertEqual(kind, text(round["result"]), "\(text(round["name"])): \(result)")
        XCTAssertNotNil(round["reasons"], text(round["name"]))
        XCTAssertEqual(Set(reasons.map(\.code)).sorted(), texts(round["reasons"]), "\(text(round["name"])): \(result)")
    }

    /// Every code the kit names is one of the client's reasons, and every reason is documented.
    func testEveryReasonCodeOfTheKitIsAFailureReason() throws {
        let refresh = list(try vectors("refresh.json")["rounds"]).compactMap(\.objectValue)
        let limits = list(try vectors("limits.json")["cases"]).compactMap(\.objectValue)
        let trust = list(try vectors("trust.json")["cases"]).compactMap(\.objectValue)
        let codes =
            (refresh + limits).flatMap { texts($0["reasons"]) }
            + trust.compactMap { $0["expected"]?.objectValue?["refused"]?.stringValue }
        XCTAssertGreaterThan(Set(codes).count, 10)
        for code in codes { XCTAssertNotNil(RolloutClient.FailureReason(rawValue: code), code) }
        let docs = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/conformance.md"), encoding: .utf8)
        for reason in RolloutClient.FailureReason.allCases {
            XCTAssertTrue(docs.contains("| `\(reason.code)` |"), "docs/conformance.md has no row for \(reason.code)")
        }
    }

    func testTheSizeLimitsAreTheKitsAndAFileOverItsLimitIsRefused() async throws {
        let file = try vectors("limits.json")
        let limits = Dictionary(
            uniqueKeysWithValues: list(file["limits"]).compactMap(\.objectValue).map {
                (text($0["kind"]), $0["bytes"]?.integerValue ?? 0)
            })
        typealias Limits = RolloutClient.SizeLimits
        XCTAssertEqual(
            limits,
            [
                "keys": Limits.keyList, "signature": Limits.signature, "index": Limits.index,
                "manifest": Limits.manifest, "pack": Limits.pack,
            ])
        let cases = list(file["cases"]).compactMap(\.objectValue)
        XCTAssertGreaterThan(cases.count, 4)
        for c in cases {
            var site = file["site"]?.objectValue ?? [:]
            if let grow = c["grow"]?.objectValue {
                let path = text(grow["path"])
                var bytes = try XCTUnwrap(site[path].flatMap { $0.stringValue }.flatMap(Base64.decode), path)
                bytes += [UInt8](repeating: 0x20, count: (grow["bytes"]?.integerValue ?? 0) - bytes.count)
                site[path] = .string(Base64.encode(bytes))
            }
            let device = client(
                bundled: bundled(file["bundled"]), site: SiteTransport(.object(site)),
                publicKey: text(file["publicKey"]),
                device: file["device"]?.objectValue ?? [:])
            check(await device.refresh(force: true), against: c)
            device.activatePending()
            for (key, expected) in c["strings"]?.objectValue ?? [:] {
                XCTAssertEqual(device.string(key), expected.stringValue, "\(text(c["name"])): \(key)")
            }
        }
    }
}

/// A site served from a vector's `site` member (path to base64 bytes) under any base URL.
/// `@unchecked Sendable`: `lock` guards `files`, which the test swaps while the client fetches.
final class SiteTransport: RolloutTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var files: [String: Data] = [:]

    init(_ site: JSONValue?) { serve(site) }

    func serve(_ site: JSONValue?) {
        let decoded = (site?.objectValue ?? [:]).compactMapValues {
            $0.stringValue.flatMap(Base64.decode).map { Data($0) }
        }
        lock.withLock { files = decoded }
    }

    func fetch(_ url: URL, limit: Int) async throws -> Data {
        let path = url.path.replacingOccurrences(of: "/app/", with: "", options: .anchored)
        guard let data = lock.withLock({ files[path] }) else { throw TransportError(reason: .notFound, "\(url): 404") }
        guard data.count <= limit else { throw TransportError.tooLarge(url, limit: limit) }
        return data
    }
}
