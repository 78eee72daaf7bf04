import Foundation
import RolloutCrypto
import RolloutModel

/// The conformance kit (docs/conformance.md): JSON test vectors a client port (Kotlin, JavaScript)
/// runs to prove it does what a device does. The expected values come from the model functions
/// the Swift client uses (bucketing, ranges, resolution, the index's chain, parsing, signatures) or,
/// for lookup order, formatting and refresh rounds, from the rules docs/manifest.md states, and for
/// trust from `KeyChain`; the Swift client's tests consume every file, and
/// Tests/Fixtures/conformance/check.py re-derives the bucketing, range, signature and trust vectors
/// without any Swift code.
///
/// Deterministic: the signing keys come from fixed seeds, so the same source gives the same bytes.
public enum ConformanceVectors {
    /// File name to bytes (pretty JSON, sorted keys, a final newline).
    public static func files() throws -> [String: [UInt8]] {
        let key = try testKey("rollout conformance signing key")
        let other = try testKey("rollout conformance other key")
        return [
            "bucketing.json": JSONWriter.pretty(bucketing()),
            "version-ranges.json": JSONWriter.pretty(try versionRanges()),
            "resolution.json": JSONWriter.pretty(try resolution()),
            "chains.json": JSONWriter.pretty(chains()),
            "signatures.json": JSONWriter.pretty(signatures(key: key, other: other)),
            "documents.json": JSONWriter.pretty(documents(key: key)),
            "formatting.json": JSONWriter.pretty(formatting()),
            "plurals.json": JSONWriter.pretty(plurals()),
            "lookup.json": JSONWriter.pretty(lookup(key: key)),
            "refresh.json": JSONWriter.pretty(refresh(key: key)),
            "limits.json": JSONWriter.pretty(limits(key: key)),
            "trust.json": JSONWriter.pretty(try trust()),
            "launches.json": JSONWriter.pretty(launches(key: key)),
            "counters.json": JSONWriter.pretty(counters(key: key)),
            "outcomes.json": JSONWriter.pretty(outcomes(key: key)),
        ]
    }

    /// An Ed25519 key from a fixed seed: SHA-256 of `label` as the RFC 8032 private key. Only for
    /// test vectors, where reproducible bytes matter more than secrecy.
    static func testKey(_ label: String) throws -> Ed25519.PrivateKey {
        let header: [UInt8] = [
            0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
        ]
        let der = header + SHA256.digest(Array(label.utf8))
        return try .pem("-----BEGIN PRIVATE KEY-----\n\(Base64.encode(der))\n-----END PRIVATE KEY-----\n")
    }

    static func base64(_ bytes: [UInt8]) -> JSONValue { .string(Base64.encode(bytes)) }
    static func strings(_ list: [String]) -> JSONValue { .array(list.map { .string($0) }) }

    // MARK: - Bucketing

    static func bucketing() -> JSONValue {
        var pairs: [(salt: String, id: String)] = [
            ("02d2cf9db956f565", "5F0C2A7E-1111-2222-3333-444455556666"), ("a", "00000000-0000-0000-0000-000000000000"),
            ("salt", "device-1"), ("salt", "device-2"), ("9f86d081884c7d65", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"),
            ("s", "ünïcödé-id"), ("empty-id", ""), ("02d2cf9db956f566", "5F0C2A7E-1111-2222-3333-444455556666"),
            ("9f86d081884c7d65", "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"), ("", "no-salt"), ("salt", "emoji-🙂-id"),
            ("salt", "e\u{301}-decomposed"), ("salt", "\u{e9}-composed"),
        ]
        // A deterministic spread: enough ids that every digit of the bucket and the top bit are exercised.
        for i in 0..<40 {
            let hex = SHA256.hex(Array("conformance-\(i)".utf8))
            pairs.append((String(hex.prefix(16)), String(hex.dropFirst(16).prefix(32)).uppercased()))
        }
        return [
            "about":
                "bucket = (first 8 bytes of SHA-256(UTF-8(salt) || 0x00 || UTF-8(installId)), big-endian unsigned) mod 10000 (docs/targeting.md, Bucketing)",
            "vectors": .array(
                pairs.map { pair in
                    [
                        "salt": .string(pair.salt), "installId": .string(pair.id),
                        "bucket": .integer(Bucketing.bucket(installID: pair.id, salt: pair.salt)),
                    ]
                }),
        ]
    }

    // MARK: - Versions and ranges

    static func versionRanges() throws -> JSONValue {
        let versionTexts = [
            "4.8.1", "4.8", "4", "4.08", "4.8.0", "0", "1.2.3.4.5.6.7.8", "999999999.1", "", "4.8-beta", "v4.8", "4..8",
            ".4", "4.",
            " 4.8", "4.8 ", "1.2.3.4.5.6.7.8.9", "1000000000", "4,8", "+4.8", "-1", "٤.٨",
        ]
        let versions: [JSONValue] = versionTexts.map { text in
            guard let v = AppVersion(text) else { return ["text": .string(text), "valid": false] }
            return ["text": .string(text), "valid": true, "normalized": .string(v.normalized)]
        }
        let pairs = [
            ("4.10", "4.9"), ("1.5", "1.5.0"), ("4.08", "4.8"), ("4.8.1", "4.8"), ("4.8", "4.8.0.0.1"), ("10", "9.99"),
            ("0.0.0", "0"), ("2.0.1", "2.1"),
        ]
        let compare: [JSONValue] = pairs.map { a, b in
            let x = AppVersion(a)!
            let y = AppVersion(b)!
            return ["a": .string(a), "b": .string(b), "order": .integer(x < y ? -1 : (x == y ? 0 : 1))]
        }
        let probes = [
            "0", "3.9.9", "4", "4.7.99", "4.8", "4.8.0", "4.8.1", "4.8.99", "4.9", "4.9.0.1", "4.10", "5", "5.0.0",
            "5.0.1", "10",
        ]
        let valid = [
            "*", "4.8.x", "4.x", "=4.8.1", "=4.8", ">=4.8", ">4.8", "<5", "<=4.9.3", ">=4.8 <5", ">4.8 <=4.9",
            ">=4.8.0 <4.9",
        ]
        let invalid = [
            "", "4.8", ">=", ">= 4.8", "^4.8", "~4.8", "4.8-beta", ">=4.8 >=4.9", "<5 <6", ">=5 <4", ">4.8 <4.8",
            "=4.8 <5", "!=4.8",
            ">=4.8,<5", "4.8.x.x", "x", "=>4.8",
        ]
        var ranges: [JSONValue] = []
        for text in valid {
            let range = try VersionRange.parse(text)
            let contains = probes.filter { range.contains(AppVersion($0)!) }
            ranges.append([
                "text": .string(text), "valid": true, "contains": strings(contains),
                "excludes": strings(probes.filter { !contains.contains($0) }),
            ])
        }
        for text in invalid {
            precondition((try? VersionRange.parse(text)) == nil, "\(text) must not parse")
            ranges.append(["text": .string(text), "valid": false])
        }
        return [
            "about": """
            Versions: digits separated by single dots, at most 8 components, each at most 999999999, at most 80 bytes; \
            compared numerically with missing components as 0 (1.5 == 1.5.0). Ranges: the forms of docs/targeting.md \
            (App-version ranges) as a manifest stores them. A range a device cannot parse: see resolution.json \
            (a rule with it matches no device; a withdrawn segment with it covers every app version of its region).
            """,
            "versions": .array(versions), "compare": .array(compare), "ranges": .array(ranges),
        ]
    }

    // MARK: - Resolution

    static func ref(_ version: Int, _ minApp: String) -> JSONValue {
        ["contentVersion": .integer(version), "minAppVersion": .string(minApp)]
    }

    static func rule(_ version: Int, _ minApp: String, regions: [String], _ range: String, _ bp: Int, salt: String)
        -> JSONValue
    {
        [
            "pack": ref(version, minApp), "regions": strings(regions), "appVersions": .string(range),
            "basisPoints": .integer(bp), "salt": .string(salt),
        ]
    }

    static func plan(
        _ locale: String, baseline: JSONValue = .null, previous: [JSONValue] = [], rules: [JSONValue] = [],
        blocked: [Int] = [],
        withdrawn: [(String, String)] = [], bundledOnly: Bool = false, sequence: Int = 1
    ) -> JSONValue {
        [
            "locale": .string(locale), "baseline": baseline, "previousBaselines": .array(previous),
            "rules": .array(rules),
            "blocked": .array(blocked.map { .integer($0) }),
            "withdrawn": .array(withdrawn.map { ["region": .string($0.0), "appVersions": .string($0.1)] }),
            "bundledOnly": .bool(bundledOnly), "sequence": .integer(sequence),
        ]
    }

    static let salt = "161a344543e9f139"
    static let testerSalt = "0c5d7a4e91b2f386"

    /// A plan's `testers` member in the wire form: group qa holds two of the kit's install ids,
    /// the upper-case spelling of one and `device-1`, so its lower-case twin is no tester.
    /// A plan's `testers` member holding group qa with these members, as written (documents.json).
    static func testers(members: [JSONValue]) -> JSONValue {
        [["group": "qa", "pack": ref(17, "4.8.0"), "salt": .string(testerSalt), "members": .array(members)]]
    }

    static func withTesters(_ plan: JSONValue, pack version: Int = 18, minAppVersion: String = "4.8.0") -> JSONValue {
        guard var o = plan.objectValue else { return plan }
        let members = ["E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "device-1"].map {
            TesterGroup.memberHash(installID: $0, salt: testerSalt)
        }
        o["testers"] = [
            [
                "group": "qa", "pack": ref(version, minAppVersion), "salt": .string(testerSalt),
                "members": strings(members.sorted()),
            ]
        ]
        return .object(o)
    }

    static let experimentSalt = "3e8a1f0c7b2d5946"

    /// A plan's `experiment` member in the wire form: control tr-TR@17 and variant tr-TR@18 over
    /// ranges of `experimentSalt` (in list order: the control's, then the variant's), whose buckets for the kit's install ids are 4444,
    /// 3601, 7282 and 8481.
    static func experiment(
        _ ranges: [Range<Int>], regions: [String] = ["TR"], appVersions: String = ">=4.8",
        variantMinApp: String = "4.8.0"
    ) -> JSONValue {
        let packs = [ref(17, "4.8.0"), ref(18, variantMinApp)]
        return [
            "name": "title-test", "salt": .string(experimentSalt), "regions": strings(regions),
            "appVersions": .string(appVersions),
            "variants": .array(
                zip(packs, ranges).map { pack, range in
                    ["pack": pack, "from": .integer(range.lowerBound), "to": .integer(range.upperBound)]
                }),
            "keys": strings(["title"]), "metrics": strings(["checkout", "signup"]),
        ]
    }

    static func withExperiment(_ plan: JSONValue, _ experiment: JSONValue) -> JSONValue {
        guard var o = plan.objectValue else { return plan }
        o["experiment"] = experiment
        return .object(o)
    }

    /// Plans with an experiment (docs/experiments.md), step 4 of Resolution: in and out of its
    /// targeting, in each range and outside a split under 100%, a blocked variant, an app below a
    /// variant's minAppVersion, testers before it and the rules after it.
    static func experimentPlans() -> [(String, JSONValue)] {
        let split = [0..<4000, 4000..<8000]
        let staged = [rule(18, "4.8.0", regions: [], "*", 10000, salt: salt)]
        let base = plan(
            "tr-TR", baseline: ref(17, "4.8.0"), rules: [rule(19, "4.8.0", regions: ["US"], "*", 10000, salt: salt)])
        return [
            ("experiment", withExperiment(base, experiment(split))),
            (
                "experimentEveryone",
                withExperiment(
                    plan("tr-TR", baseline: ref(17, "4.8.0")),
                    // As experiment start lays them out: the treatment's range first, the control's after.
                    experiment([5000..<10000, 0..<5000], regions: [], appVersions: "*"))
            ),
            (
                "experimentBlocked",
                withExperiment(
                    plan("tr-TR", baseline: ref(17, "4.8.0"), rules: staged, blocked: [18]), experiment(split))
            ),
            ("experimentTooOld", withExperiment(base, experiment(split, variantMinApp: "4.9.0"))),
            ("experimentAndTesters", withTesters(withExperiment(base, experiment(split)), pack: 19)),
            (
                "experimentWithdrawn",
                withExperiment(
                    plan("tr-TR", baseline: ref(17, "4.8.0"), withdrawn: [("TR", "4.8.x")]), experiment(split))
            ),
        ]
    }

    /// Plans in the manifest's wire form, named; each exercises one step of docs/targeting.md, Resolution.
    static func resolutionPlans() -> [(String, JSONValue)] {
        let staged = [
            rule(18, "4.8.0", regions: ["TR"], ">=4.8", 2000, salt: salt),
            rule(18, "4.8.0", regions: ["DE"], "*", 2000, salt: salt),
            rule(18, "4.8.0", regions: [], "4.9.x", 500, salt: salt),
        ]
        return [
            ("staged", plan("tr-TR", baseline: ref(17, "4.8.0"), rules: staged)),
            ("withdrawn", plan("tr-TR", baseline: ref(17, "4.8.0"), rules: staged, withdrawn: [("TR", "4.8.x")])),
            ("killSwitch", plan("tr-TR", baseline: ref(17, "4.8.0"), blocked: [17, 18], bundledOnly: true)),
            (
                "blockedCandidate",
                plan(
                    "tr-TR", baseline: ref(17, "4.8.0"),
                    rules: [rule(18, "4.8.0", regions: [], "*", 10000, salt: salt)], blocked: [18])
            ),
            (
                "olderBaselines",
                plan(
                    "tr-TR", baseline: ref(19, "4.9.0"), previous: [ref(18, "4.8.0"), ref(17, "4.8.0")], blocked: [18])
            ),
            ("noBaseline", plan("tr-TR", rules: [rule(18, "4.8.0", regions: ["TR"], "*", 5000, salt: salt)])),
            (
                "fullShare",
                plan(
                    "tr-TR", baseline: ref(17, "4.8.0"), rules: [rule(18, "4.8.0", regions: [], "*", 10000, salt: salt)]
                )
            ),
            (
                "zeroShare",
                plan("tr-TR", baseline: ref(17, "4.8.0"), rules: [rule(18, "4.8.0", regions: [], "*", 0, salt: salt)])
            ),
            (
                "unreadableRule",
                plan(
                    "tr-TR", baseline: ref(17, "4.8.0"),
                    rules: [
                        rule(18, "4.8.0", regions: ["TR"], "^4.8", 10000, salt: salt),
                        rule(18, "4.8.0", regions: [], "*", 10000, salt: salt),
                    ])
            ),
            ("testers", withTesters(plan("tr-TR", baseline: ref(17, "4.8.0")))),
            ("testersAndShares", withTesters(plan("tr-TR", baseline: ref(17, "4.8.0"), rules: staged))),
            (
                "testersWithdrawn",
                withTesters(plan("tr-TR", baseline: ref(17, "4.8.0"), rules: staged, withdrawn: [("TR", "4.8.x")]))
            ),
            ("testersBlocked", withTesters(plan("tr-TR", baseline: ref(17, "4.8.0"), blocked: [18]))),
            ("testersTooOld", withTesters(plan("tr-TR", baseline: ref(17, "4.8.0")), minAppVersion: "4.9.0")),
            (
                "unreadableWithdrawn",
                plan(
                    "tr-TR", baseline: ref(17, "4.8.0"),
                    rules: [rule(18, "4.8.0", regions: [], "*", 10000, salt: salt)],
                    withdrawn: [("TR", "~4.8")])
            ),
        ] + experimentPlans()
    }

    static func resolution() throws -> JSONValue {
        let ids = [
            "5F0C2A7E-1111-2222-3333-444455556666", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
            "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "device-1",
        ]
        let devices: [(String, String)] = [
            ("TR", "4.8.1"), ("TR", "4.9.1"), ("TR", "4.7.3"), ("DE", "4.8.0"), ("DE", "4.7"), ("US", "4.9.1"),
            ("US", "4.10"),
            ("US", "4.8.5"), ("TR", "4.8-beta"), ("TR", "5"),
        ]
        var plans: [String: JSONValue] = [:]
        var cases: [JSONValue] = []
        for (name, wire) in resolutionPlans() {
            plans[name] = wire
            let read = LocaleManifest.readableRanges(wire).0
            let parsed = try Plan.parse(read, source: name)
            for (region, version) in devices {
                for id in ids {
                    let outcome = Resolution.outcome(
                        parsed, region: region, appVersion: AppVersion(version), installID: id)
                    let result: JSONValue
                    switch outcome {
                    case .pack(let v): result = .integer(v)
                    case .bundled: result = .null
                    }
                    let variant = Resolution.experimentVariant(
                        parsed, region: region, appVersion: AppVersion(version), installID: id)
                    cases.append([
                        "plan": .string(name), "region": .string(region), "appVersion": .string(version),
                        "installId": .string(id), "contentVersion": result,
                        "experimentVariant": variant.map { .integer($0.pack.contentVersion) } ?? .null,
                    ])
                }
            }
        }
        return [
            "about": """
            Each case resolves one locale's plan (the manifest's "plan" member) for one device, as docs/targeting.md \
            (Resolution) says. contentVersion null means nothing from this locale. Plans unreadableRule and \
            unreadableWithdrawn hold ranges a device cannot parse: the rule matches no device, the withdrawn segment \
            covers every app version of its region. Plans testers* stage tr-TR@18 to tester group qa: a device whose \
            lowercase hex SHA-256(UTF-8(salt) || 0x00 || UTF-8(installId)) is one of the group's members gets the pack \
            whatever its bucket, unless it is blocked, its app is below the pack's minAppVersion, or a withdrawn \
            segment covers the device; install ids compare byte for byte (case matters). Plans experiment* run an \
            experiment (docs/experiments.md), step 4, after testers and before the rules: a device in its regions \
            (empty: every region) and appVersions whose bucket (of the experiment's salt) is in a variant's from..<to \
            gets that variant's pack, unless it is blocked or the app is below its minAppVersion; then the rules go \
            on. experimentVariant is the content version of the variant the device is in (the one step 4 gave it, \
            for which it counts exposures and conversions), null when it is in none.
            """,
            "plans": .object(plans), "cases": .array(cases),
        ]
    }

    // MARK: - Chains

    static func chains() -> JSONValue {
        func entry(_ chain: [String], fallback: [String]? = nil) -> JSONValue {
            var o: [String: JSONValue] = ["chain": strings(chain)]
            if let fallback { o["fallbackChain"] = strings(fallback) }
            return .object(o)
        }
        let normal: JSONValue = [
            "defaultLocale": "en-US",
            "locales": [
                "en-US": entry(["en-US"]), "tr": entry(["tr", "en-US"]), "tr-TR": entry(["tr-TR", "tr", "en-US"]),
                "zh-Hant": entry(["zh-Hant", "zh", "en-US"]), "zh": entry(["zh", "en-US"]),
                "pt": entry(["pt", "en-US"]), "pt-BR": entry(["pt-BR"], fallback: ["pt-BR", "pt", "en-US"]),
            ],
        ]
        let trKilled: JSONValue = [
            "defaultLocale": "en-US",
            "locales": [
                "en-US": entry(["en-US"]), "tr": entry(["tr"], fallback: ["tr", "en-US"]),
                "tr-TR": entry(["tr-TR", "tr", "en-US"]),
            ],
        ]
        let oldIndex: JSONValue = [
            "defaultLocale": "en-US",
            "locales": ["en-US": entry(["en-US"]), "tr": entry(["tr"]), "tr-TR": entry(["tr-TR", "tr", "en-US"])],
        ]
        let noDefault: JSONValue = ["defaultLocale": "fr-FR", "locales": ["tr": entry(["tr"])]]
        let indexes: [String: JSONValue] = [
            "normal": normal, "trKilled": trKilled, "oldIndexTrKilled": oldIndex, "defaultNotListed": noDefault,
        ]
        let cases: [(String, String)] = [
            ("normal", "tr-TR"), ("normal", "tr"), ("normal", "tr-CY"), ("normal", "tr-Latn-CY"),
            ("normal", "zh-Hant-HK"),
            ("normal", "zh-Hans-CN"), ("normal", "de-DE"), ("normal", "en-US"), ("normal", "en-GB"),
            ("normal", "pt-BR"),
            ("normal", "pt-BR-x-y"), ("normal", "tr-tr"),
            ("trKilled", "tr"), ("trKilled", "tr-CY"), ("trKilled", "tr-TR"), ("oldIndexTrKilled", "tr-CY"),
            ("defaultNotListed", "de-DE"), ("defaultNotListed", "tr-CY"),
        ]
        var out: [JSONValue] = []
        for (name, locale) in cases {
            out.append([
                "index": .string(name), "locale": .string(locale),
                "chain": strings(siteIndex(indexes[name]!).chain(for: locale)),
            ])
        }
        return [
            "about": """
            SiteIndex.chain(for:) (docs/manifest.md, The chain of a device): a listed locale reads its chain; an unlisted \
            one the fallbackChain (else chain) of its nearest listed shorter form (drop the last '-' subtag, repeatedly); \
            else defaultLocale alone if listed; else nothing. Only the members that decide are shown for each index.
            """,
            "indexes": .object(indexes), "cases": .array(out),
        ]
    }

    static func siteIndex(_ value: JSONValue) -> SiteIndex {
        let o = value.objectValue!
        var entries: [String: SiteIndex.Entry] = [:]
        for (locale, item) in o["locales"]!.objectValue! {
            let e = item.objectValue!
            entries[locale] = SiteIndex.Entry(
                sequence: 1, manifest: SiteLayout.manifest(locale),
                chain: e["chain"]!.arrayValue!.compactMap(\.stringValue),
                fallbackChain: e["fallbackChain"]?.arrayValue?.compactMap(\.stringValue))
        }
        return SiteIndex(
            sequence: 1, time: Timestamp(seconds: 0), defaultLocale: o["defaultLocale"]!.stringValue!, locales: entries)
    }

    // MARK: - Signatures

    static func signatures(key: Ed25519.PrivateKey, other: Ed25519.PrivateKey) -> JSONValue {
        let file = Array(#"{"format":"rollout-index/1","locales":{},"sequence":1}"#.utf8)
        let raw = key.sign(file)
        let good = DetachedSignature.encode(raw)
        let text = Base64.encode(raw)
        // The last base64 character carries 2 padding bits; a decoder that ignores them accepts this too.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        let lastIndex = text.index(text.endIndex, offsetBy: -3)
        let last = alphabet.firstIndex(of: text[lastIndex])!
        var loose = text
        loose.replaceSubrange(lastIndex...lastIndex, with: String(alphabet[last ^ 1]))
        let urlSafe = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        var flipped = raw
        flipped[0] ^= 1
        var tampered = file
        tampered[tampered.count - 2] = UInt8(ascii: "2")
        let cases: [(String, [UInt8], [UInt8], Bool)] = [
            ("good", file, good, true),
            ("another key signed the file", file, DetachedSignature.encode(other.sign(file)), false),
            ("the file changed after signing", tampered, good, false),
            ("the signature of another file", file, DetachedSignature.encode(key.sign(tampered)), false),
            ("one signature bit flipped", file, DetachedSignature.encode(flipped), false),
            ("no final newline", file, Array(text.utf8), false),
            ("CRLF instead of the newline", file, Array((text + "\r\n").utf8), false),
            ("two final newlines", file, Array((text + "\n\n").utf8), false),
            ("a space before the newline", file, Array((text + " \n").utf8), false),
            ("base64 without padding", file, Array((text.replacingOccurrences(of: "=", with: "") + "\n").utf8), false),
            ("base64url alphabet", file, Array((urlSafe + "\n").utf8), urlSafe == text),
            ("non-zero padding bits", file, Array((loose + "\n").utf8), false),
            ("the 64 raw bytes instead of base64", file, raw, false),
            ("truncated to 63 bytes", file, DetachedSignature.encode(Array(raw.prefix(63))), false),
            ("truncated base64 text", file, Array((String(text.dropLast(4)) + "\n").utf8), false),
            ("empty", file, [], false),
            (
                "line-wrapped base64", file,
                Array((String(text.prefix(76)) + "\n" + String(text.dropFirst(76)) + "\n").utf8), false
            ),
        ]
        return [
            "about": """
            A .sig file is accepted only when its bytes are exactly the standard base64 (with '=' padding, zero padding \
            bits) of the 64-byte Ed25519 signature followed by one LF: 89 bytes (docs/manifest.md, Signatures). file and \
            sig are base64 of the exact bytes.
            """,
            "publicKey": .string(key.publicKey.description), "otherPublicKey": .string(other.publicKey.description),
            "cases": .array(
                cases.map { name, f, sig, valid in
                    ["name": .string(name), "file": base64(f), "sig": base64(sig), "valid": .bool(valid)]
                }),
        ]
    }

    // MARK: - Documents (index and manifest parsing)

    static func packEntry(_ locale: String, _ version: Int, _ bytes: [UInt8], checksum: String, minApp: String)
        -> JSONValue
    {
        let sha = SHA256.hex(bytes)
        return [
            "url": .string(SiteLayout.pack(PackID(locale: locale, contentVersion: version), sha256: sha)),
            "bytes": .integer(bytes.count),
            "sha256": .string(sha), "checksum": .string(checksum), "minAppVersion": .string(minApp), "schemaVersion": 2,
        ]
    }

    static func documents(key: Ed25519.PrivateKey) -> JSONValue {
        let pack = Pack(
            locale: "tr-TR", contentVersion: 17, minAppVersion: AppVersion("4.8.0")!, strings: ["title": "Merhaba"])
        let entry = packEntry("tr-TR", 17, pack.storedBytes, checksum: pack.checksum, minApp: "4.8.0")
        let manifest: JSONValue = [
            "format": "rollout-manifest/1", "locale": "tr-TR", "sequence": 2, "time": "2026-11-21T09:00:00Z",
            "plan": plan("tr-TR", baseline: ref(17, "4.8.0"), sequence: 2), "packs": ["17": entry],
        ]
        let index: JSONValue = [
            "format": "rollout-index/1", "sequence": 3, "time": "2026-11-21T09:00:00Z", "defaultLocale": "en-US",
            "locales": ["tr-TR": ["chain": ["tr-TR"], "manifest": "manifests/tr-TR.json", "sequence": 2]],
        ]
        let cases = documentCases(pack: pack, entry: entry, manifest: manifest, index: index)
        var out: [JSONValue] = []
        for (name, kind, doc, accepted) in cases {
            let bytes = JSONWriter.canonical(doc)
            let parsed: Bool
            if kind == "index" {
                parsed = (try? SiteIndex.parse(bytes, source: "index.json")) != nil
            } else {
                parsed = (try? LocaleManifest.parse(bytes, source: "manifests/tr-TR.json")) != nil
            }
            precondition(
                parsed == accepted, "documents.json: \(name) (\(kind)) must be \(accepted ? "accepted" : "refused")")
            out.append([
                "name": .string(name), "kind": .string(kind),
                "document": .string(String(decoding: bytes, as: UTF8.self)), "accepted": .bool(accepted),
            ])
        }
        out.append([
            "name": "a duplicate member", "kind": "index", "accepted": false,
            "document": .string(
                #"{"defaultLocale":"en-US","format":"rollout-index/1","locales":{},"sequence":3,"sequence":4,"time":"2026-11-21T09:00:00Z"}"#
            ),
        ])
        return [
            "about": """
            Parsing an index or a manifest after its signature verified (docs/manifest.md, Wire rules): unknown members \
            are ignored; a known member of the wrong type, an integer outside 0..2^53-1, a duplicate member, another \
            format or a pack url other than packs/<locale>/<version>.<first 16 hex of sha256>.json refuses the document.
            """,
            "cases": .array(out),
        ]
    }

    // Long: a flat list of conformance cases, one entry per case (docs/conformance.md).
    /// The documents.json cases: a name, the kind of document, the document, and whether a device
    /// accepts it.
    static func documentCases(
        pack: Pack, entry: JSONValue, manifest: JSONValue, index: JSONValue
    ) -> [(String, String, JSONValue, Bool)] {
        let sha = SHA256.hex(pack.storedBytes)
        return [
            ("a good index", "index", index, true),
            ("an unknown member at the top of the index", "index", edit(index, ["cdn"], "x"), true),
            ("an unknown member in a locale entry", "index", edit(index, ["locales", "tr-TR", "weight"], 3), true),
            ("a fallbackChain", "index", edit(index, ["locales", "tr-TR", "fallbackChain"], ["tr-TR"]), true),
            ("another format", "index", edit(index, ["format"], "rollout-index/2"), false),
            ("sequence as a string", "index", edit(index, ["sequence"], "3"), false),
            ("sequence as a fraction", "index", edit(index, ["sequence"], .number(JSONNumber(3.5))), false),
            ("a negative sequence", "index", edit(index, ["sequence"], -1), false),
            ("a sequence above 2^53-1", "index", edit(index, ["sequence"], .integer(9_007_199_254_740_992)), false),
            (
                "a chain that is not an array of strings", "index", edit(index, ["locales", "tr-TR", "chain"], [1]),
                false
            ),
            (
                "a manifest path that is not manifests/<locale>.json", "index",
                edit(index, ["locales", "tr-TR", "manifest"], "manifests/../tr-TR.json"), false
            ),
            (
                "a locale that is not canonical BCP 47", "index",
                edit(index, ["locales", "tr-TR"], nil).objectValue.map { o in
                    edit(
                        .object(o), ["locales", "tr-tr"],
                        ["chain": ["tr-tr"], "manifest": "manifests/tr-tr.json", "sequence": 2])
                }!, false
            ),
            ("no defaultLocale", "index", edit(index, ["defaultLocale"], nil), false),
            ("a good manifest", "manifest", manifest, true),
            ("an unknown member at the top of the manifest", "manifest", edit(manifest, ["signedBy"], "x"), true),
            ("an unknown member in the plan", "manifest", edit(manifest, ["plan", "ramp2"], ["x": 1]), true),
            ("an unknown member in a pack entry", "manifest", edit(manifest, ["packs", "17", "mirror"], "x"), true),
            (
                "a rule whose range the device cannot parse", "manifest",
                edit(manifest, ["plan", "rules"], [rule(18, "4.8.0", regions: [], "^4.8", 10000, salt: salt)]), true
            ),
            (
                "tester groups in the plan", "manifest", edit(manifest, ["plan", "testers"], testers(members: ["ab"])),
                true
            ),
            ("testers as a string", "manifest", edit(manifest, ["plan", "testers"], "qa"), false),
            (
                "a tester member that is not a string", "manifest",
                edit(manifest, ["plan", "testers"], testers(members: [1])), false
            ),
            ("another format", "manifest", edit(manifest, ["format"], "rollout-manifest/2"), false),
            ("bundledOnly as a string", "manifest", edit(manifest, ["plan", "bundledOnly"], "true"), false),
            ("blocked holding a string", "manifest", edit(manifest, ["plan", "blocked"], ["18"]), false),
            (
                "basisPoints above 10000", "manifest",
                edit(manifest, ["plan", "rules"], [rule(17, "4.8.0", regions: [], "*", 10001, salt: salt)]), false
            ),
            (
                "a region that is not a string", "manifest",
                edit(
                    manifest, ["plan", "rules"],
                    [edit(rule(17, "4.8.0", regions: [], "*", 100, salt: salt), ["regions"], [1])]), false
            ),
            (
                "bytes as a string", "manifest",
                edit(manifest, ["packs", "17", "bytes"], .string("\(pack.storedBytes.count)")), false
            ),
            (
                "a pack version written 017", "manifest",
                edit(edit(manifest, ["packs", "17"], nil), ["packs", "017"], entry), false
            ),
            (
                "an absolute pack url", "manifest",
                edit(manifest, ["packs", "17", "url"], .string("/packs/tr-TR/17.\(sha.prefix(16)).json")), false
            ),
            (
                "a pack url with ..", "manifest",
                edit(manifest, ["packs", "17", "url"], .string("packs/tr-TR/../../17.\(sha.prefix(16)).json")), false
            ),
            (
                "a pack url on another host", "manifest",
                edit(
                    manifest, ["packs", "17", "url"],
                    .string("https://cdn.example/packs/tr-TR/17.\(sha.prefix(16)).json")), false
            ),
            (
                "a pack url naming another digest", "manifest",
                edit(manifest, ["packs", "17", "url"], "packs/tr-TR/17.0000000000000000.json"), false
            ),
            (
                "a pack url of another locale", "manifest",
                edit(manifest, ["packs", "17", "url"], .string("packs/tr/17.\(sha.prefix(16)).json")), false
            ),
            (
                "a pack url with a query", "manifest",
                edit(manifest, ["packs", "17", "url"], .string("packs/tr-TR/17.\(sha.prefix(16)).json?x=1")), false
            ),
            (
                "an upper-case sha256", "manifest",
                edit(manifest, ["packs", "17", "sha256"], .string(sha.uppercased())), false
            ),
            (
                "a checksum without sha256:", "manifest",
                edit(manifest, ["packs", "17", "checksum"], .string(String(pack.checksum.dropFirst(7)))), false
            ),
            ("the plan of another locale", "manifest", edit(manifest, ["plan", "locale"], "tr"), false),
        ]
    }

    /// `doc` with the member at `path` set to `value` (nil: removed).
    static func edit(_ doc: JSONValue, _ path: [String], _ value: JSONValue?) -> JSONValue {
        guard var o = doc.objectValue, let head = path.first else { return value ?? .null }
        if path.count == 1 { o[head] = value } else { o[head] = edit(o[head] ?? [:], Array(path.dropFirst()), value) }
        return .object(o)
    }

    // MARK: - Formatting

    /// `levels` selects nested in one another around the text "end".
    static func nestedSelect(_ levels: Int) -> String {
        String(repeating: "{g, select, other {", count: levels) + "end" + String(repeating: "}}", count: levels)
    }

    // Long: the formatting vectors are one table, read top to bottom as the kit's file lists them.
    static func formatting() -> JSONValue {
        let plural = "{count, plural, =0 {no files} one {# file} other {# files}}"
        let ru = "{n, plural, one {# файл} few {# файла} many {# файлов} other {# файла}}"
        let ar = "{n, plural, zero {صفر} one {واحد} two {اثنان} few {# قليل} many {# كثير} other {# آخر}}"
        let ptPT = "{n, plural, one {# ficheiro} other {# ficheiros}}"
        let cases: [(String, [String: String], String, String)] = [
            ("Merhaba, {name}!", ["name": "Ada"], "tr", "Merhaba, Ada!"),
            ("{{version}} sürümü yayında", ["version": "4.9"], "tr", "4.9 sürümü yayında"),
            ("Sepetinde %d ürün var", ["1": "3"], "tr", "Sepetinde 3 ürün var"),
            ("%2$@ then %1$@", ["1": "a", "2": "b"], "en", "b then a"),
            ("%@ and %@", ["1": "x", "2": "y"], "en", "x and y"),
            ("Hello {name}", [:], "en", "Hello {name}"),
            ("Hello {name}", ["other": "x"], "en", "Hello {name}"),
            (plural, ["count": "0"], "en", "no files"),
            (plural, ["count": "1"], "en", "1 file"),
            (plural, ["count": "12"], "en", "12 files"),
            (ru, ["n": "1"], "ru", "1 файл"), (ru, ["n": "21"], "ru", "21 файл"), (ru, ["n": "3"], "ru", "3 файла"),
            (ru, ["n": "22"], "ru", "22 файла"), (ru, ["n": "5"], "ru", "5 файлов"),
            (ru, ["n": "11"], "ru", "11 файлов"),
            (ru, ["n": "111"], "ru", "111 файлов"),
            (ar, ["n": "0"], "ar", "صفر"), (ar, ["n": "1"], "ar", "واحد"), (ar, ["n": "2"], "ar", "اثنان"),
            (ar, ["n": "5"], "ar", "5 قليل"),
            (ar, ["n": "11"], "ar", "11 كثير"), (ar, ["n": "100"], "ar", "100 آخر"),
            (
                "{g, select, female {Her} male {His} other {Their}} turn, {name}", ["g": "female", "name": "Ada"], "en",
                "Her turn, Ada"
            ),
            ("{g, select, female {Her} other {Their}} turn", ["g": "x"], "en", "Their turn"),
            ("l''app", [:], "fr", "l'app"),
            ("'{'name'}' is {0}", ["0": "Ada"], "en", "{name} is Ada"),
            // A syntax character ends its grapheme cluster: a joiner or a combining mark after a brace.
            ("{1}\u{200C}ها از {0}", ["0": "Ada", "1": "۳"], "fa", "۳\u{200C}ها از Ada"),
            ("{name}\u{0301}!", ["name": "e"], "en", "e\u{0301}!"),
            // printf, as lint reads it (PackPrintf): `%%` is one percent sign, length modifiers and
            // every conversion lint names fill, a specifier ends inside a cluster, other `%` is text.
            ("100%% sure", [:], "en", "100% sure"),
            ("%b %-d, %I:%M:%%S %p", ["1": "x"], "en", "%b %-d, %I:%M:%S %p"),
            ("%lld files, %S, %u", ["1": "3", "2": "b", "3": "c"], "en", "3 files, b, c"),
            ("%2$s\u{200C}ها %1$s", ["1": "a", "2": "ب"], "fa", "ب\u{200C}ها a"),
            ("%1$@%% off, 50% more, 100%ekstra, %", ["1": "20"], "en", "20% off, 50% more, 100%ekstra, %"),
            ("%3$d of %d", [:], "en", "%3$d of %d"),
            ("{0}: 100%% %d", ["0": "x", "1": "y"], "en", "x: 100%% %d"),
            // Nesting: 32 levels of select are rendered; from the 33rd an argument is shown as written.
            (nestedSelect(32), ["g": "x"], "en", "end"),
            (nestedSelect(33), ["g": "x"], "en", nestedSelect(1)),
            (nestedSelect(500), ["g": "x"], "en", nestedSelect(468)),
            // The whole locale chooses the rules: Portugal's (and Angola's, by CLDR's parent locale)
            // are not Brazil's, whose `one` holds 0 and 1.5 as well.
            (ptPT, ["n": "0"], "pt-PT", "0 ficheiros"), (ptPT, ["n": "1"], "pt-PT", "1 ficheiro"),
            (ptPT, ["n": "1.5"], "pt-PT", "1,5 ficheiros"), (ptPT, ["n": "1.5"], "pt-AO", "1,5 ficheiros"),
            (ptPT, ["n": "0"], "pt-Latn-PT", "0 ficheiros"), (ptPT, ["n": "0"], "pt_PT.UTF-8", "0 ficheiros"),
            (ptPT, ["n": "0"], "pt", "0 ficheiro"), (ptPT, ["n": "1.5"], "pt-BR", "1,5 ficheiro"),
        ]
        return [
            "about": """
            cases: string(key, arguments) of text in the locale `language` (docs/pack-format.md, placeholders; \
            plural categories from CLDR, chosen by the whole locale: pt-PT and pt-AO are not pt). Plural cases are \
            numbers whose category no CLDR version disputes. Plurals and selects nest at most 32 deep: a deeper \
            argument is shown as written. lookups: a device in `locale` with only `bundled` strings (no site) asks \
            string(key, arguments): the text is formatted in the locale of the bundle it came from (a table found \
            for en-US in `en` is in en), not the device's (docs/client.md, Lookup).
            """,
            "cases": .array(
                cases.map { message, args, language, expected in
                    [
                        "message": .string(message), "arguments": .object(args.mapValues { .string($0) }),
                        "language": .string(language), "expected": .string(expected),
                    ]
                }),
            "lookups": .array(textLocaleLookups()),
        ]
    }

    /// formatting.json's lookups: text that came from another locale's bundle than the device's.
    static func textLocaleLookups() -> [JSONValue] {
        let files = "{n, plural, one {# file} other {# files}}"
        let uk = "{n, plural, one {# файл} few {# файли} many {# файлів} other {# файлу}}"
        let bundled: [String: [String: String]] = [
            "en": ["files": files], "uk": ["own": uk],
            "pt-PT": ["files": "{n, plural, one {# ficheiro} other {# ficheiros}}"],
            "pt": ["brazil": "{n, plural, one {# arquivo} other {# arquivos}}"],
        ]
        let cases: [(String, String, String, String, String)] = [
            ("a uk-UA device showing the en text: English rules, not Ukrainian", "uk-UA", "files", "21", "21 files"),
            ("a ja-JP device showing the en text: English rules, not Japanese", "ja-JP", "files", "1", "1 file"),
            ("and the en decimal separator", "uk-UA", "files", "1.5", "1.5 files"),
            ("the device's own text: its own rules", "uk-UA", "own", "21", "21 файл"),
            ("a pt-PT device's own text: Portugal's rules", "pt-PT", "files", "0", "0 ficheiros"),
            ("a pt-PT device showing the pt (Brazil) bundle: Brazil's rules", "pt-PT", "brazil", "0", "0 arquivo"),
        ]
        return cases.map { name, locale, key, count, expected in
            [
                "name": .string(name), "locale": .string(locale),
                "bundled": .object(bundled.mapValues { .object($0.mapValues { .string($0) }) }),
                "key": .string(key), "arguments": ["n": .string(count)], "expected": .string(expected),
            ]
        }
    }

    // MARK: - Sites (lookup order and refresh rounds)

    /// One published state, built the way `rollout publish` writes it, without a repository.
    struct Site {
        var sequence: Int
        var plans: [Plan]
        var chains: [String: (chain: [String], fallback: [String]?)]
        var packs: [Pack]
        var defaultLocale = "en-US"

        func files(_ key: Ed25519.PrivateKey) -> [String: [UInt8]] {
            var files: [String: [UInt8]] = [:]
            var entries: [String: SiteIndex.Entry] = [:]
            let time = Timestamp(iso8601: "2026-11-21T09:00:00Z")!
            for plan in plans {
                var listed: [Int: LocaleManifest.PackEntry] = [:]
                for version in plan.publishedVersions {
                    guard
                        let pack = packs.first(where: { $0.id == PackID(locale: plan.locale, contentVersion: version) })
                    else { continue }
                    let bytes = pack.storedBytes
                    let sha = SHA256.hex(bytes)
                    let url = SiteLayout.pack(pack.id, sha256: sha)
                    files[url] = bytes
                    listed[version] = .init(
                        url: url, bytes: bytes.count, sha256: sha, checksum: pack.checksum,
                        minAppVersion: pack.minAppVersion.description, schemaVersion: 2)
                }
                let manifest = LocaleManifest(
                    locale: plan.locale, sequence: plan.sequence, time: time, plan: plan, packs: listed)
                let path = SiteLayout.manifest(plan.locale)
                files[path] = manifest.bytes
                files[SiteLayout.signature(of: path)] = DetachedSignature.encode(key.sign(manifest.bytes))
                let chain = chains[plan.locale] ?? (chain: [plan.locale], fallback: nil)
                entries[plan.locale] = SiteIndex.Entry(
                    sequence: plan.sequence, manifest: path, chain: chain.chain, fallbackChain: chain.fallback)
            }
            let index = SiteIndex(sequence: sequence, time: time, defaultLocale: defaultLocale, locales: entries)
            files[SiteLayout.index] = index.bytes
            files[SiteLayout.signature(of: SiteLayout.index)] = DetachedSignature.encode(key.sign(index.bytes))
            return files
        }
    }

    static func pack(_ locale: String, _ version: Int, _ strings: [String: String], minApp: String = "4.0.0") -> Pack {
        Pack(locale: locale, contentVersion: version, minAppVersion: AppVersion(minApp)!, strings: strings)
    }

    static func baselinePlan(_ locale: String, _ version: Int, sequence: Int = 1, minApp: String = "4.0.0") -> Plan {
        Plan(
            locale: locale, baseline: Plan.PackRef(contentVersion: version, minAppVersion: AppVersion(minApp)!),
            sequence: sequence)
    }

    static func siteJSON(_ files: [String: [UInt8]]) -> JSONValue { .object(files.mapValues { base64($0) }) }

    static let device: JSONValue = [
        "locale": "tr-TR", "region": "TR", "appVersion": "4.8.1", "installId": "5F0C2A7E-1111-2222-3333-444455556666",
        "defaultLocale": "en-US",
    ]

    static let bundled: JSONValue = [
        "tr-TR": ["title": "bundled tr-TR title", "welcome": "bundled tr-TR welcome"],
        "tr": ["title": "bundled tr title", "welcome": "bundled tr welcome", "tr.only": "bundled tr only"],
        "en-US": [
            "title": "bundled en-US title", "welcome": "bundled en-US welcome", "tr.only": "bundled en-US tr.only",
            "en.only": "bundled en-US only",
        ],
    ]

    static func lookup(key: Ed25519.PrivateKey) -> JSONValue {
        let site = Site(
            sequence: 3, plans: [baselinePlan("tr-TR", 17), baselinePlan("tr", 1), baselinePlan("en-US", 1)],
            chains: [
                "tr-TR": (["tr-TR", "tr", "en-US"], nil), "tr": (["tr", "en-US"], nil), "en-US": (["en-US"], nil),
            ],
            packs: [
                pack("tr-TR", 17, ["title": "tr-TR@17 title"]),
                pack("tr", 1, ["title": "tr@1 title", "welcome": "tr@1 welcome"]),
                pack(
                    "en-US", 1,
                    [
                        "title": "en-US@1 title", "welcome": "en-US@1 welcome", "new.key": "en-US@1 new key",
                        "tr.only": "en-US@1 tr.only",
                    ]),
            ])
        let cases: [(String, String, String, String)] = [
            ("the device's own pack first", "tr-TR", "title", "tr-TR@17 title"),
            (
                "a key missing from the tr-TR pack comes from the bundled tr-TR strings, not the next locale's pack",
                "tr-TR", "welcome", "bundled tr-TR welcome"
            ),
            ("then the next locale's pack", "tr-TR", "new.key", "en-US@1 new key"),
            (
                "then the next locale's bundled strings before the locale after it", "tr-TR", "tr.only",
                "bundled tr only"
            ),
            ("the default locale's bundled strings last", "tr-TR", "en.only", "bundled en-US only"),
            ("a tr device starts at tr", "tr", "title", "tr@1 title"),
            ("an en-US device", "en-US", "tr.only", "en-US@1 tr.only"),
        ]
        return [
            "about": """
            Lookup order (docs/manifest.md, How a device uses the site): for each locale of the chain, the active OTA pack \
            of that locale, then the app's bundled strings of that same locale; then the bundled strings of the app's \
            default locale. The device refreshes from site, activates what it staged, then asks for key.
            """,
            "site": siteJSON(site.files(key)), "publicKey": .string(key.publicKey.description), "bundled": bundled,
            "device": device,
            "cases": .array(
                cases.map { name, locale, k, expected in
                    [
                        "name": .string(name), "locale": .string(locale), "key": .string(k),
                        "expected": .string(expected),
                    ]
                }),
        ]
    }

    // MARK: - Refresh rounds

    static func refresh(key: Ed25519.PrivateKey) -> JSONValue {
        let rounds = refreshRounds(key: key)
        return [
            "about": """
            One device (device) with bundled strings (bundled) goes through the rounds in order, keeping its state. Each round: \
            serve site (path to base64 bytes) under one base URL, refresh, activate what was staged, then look up "title" and \
            "en.only". result: accepted (index and every manifest of the chain verified), partial (they did, a pack did \
            not), refused (nothing changed). reasons: the failure reason codes of a refused round (its one reason) or a \
            partial one (the distinct reasons of its failures, sorted; a pack held back by another's failure has that \
            failure's reason), empty for an accepted round (docs/conformance.md, "Failure reasons").
            """,
            "publicKey": .string(key.publicKey.description), "device": device, "bundled": bundled,
            "rounds": .array(
                rounds.map { round in
                    [
                        "name": .string(round.name), "site": siteJSON(round.site), "result": .string(round.result),
                        "reasons": .array(round.reasons.map { .string($0) }),
                        "strings": ["title": .string(round.title), "en.only": .string(round.enOnly)],
                    ]
                }),
        ]
    }

    /// A refresh round: the site served, the result and its reasons, and the strings "title" and
    /// "en.only" show after it.
    struct Round {
        let name: String
        let site: [String: [UInt8]]
        let result: String
        let reasons: [String]
        let title: String
        let enOnly: String

        init(
            _ name: String, _ site: [String: [UInt8]], _ result: String, _ reasons: [String], _ title: String,
            _ enOnly: String
        ) {
            (self.name, self.site, self.result, self.reasons, self.title, self.enOnly) = (
                name, site, result, reasons, title, enOnly
            )
        }

        /// An accepted round: no reasons.
        init(_ name: String, _ site: [String: [UInt8]], _ result: String, _ title: String, _ enOnly: String) {
            self.init(name, site, result, [], title, enOnly)
        }
    }

    /// The refresh rounds, in order.
    static func refreshRounds(key: Ed25519.PrivateKey) -> [Round] {
        let sites = refreshSites()
        let (s1, s2, s3, s4, s5, s6, s7) = (sites[0], sites[1], sites[2], sites[3], sites[4], sites[5], sites[6])
        var mixed = s3.files(key)
        let oldManifest = s2.files(key)
        mixed["manifests/tr-TR.json"] = oldManifest["manifests/tr-TR.json"]
        mixed["manifests/tr-TR.json.sig"] = oldManifest["manifests/tr-TR.json.sig"]
        mixed["manifests/en-US.json"] = s1.files(key)["manifests/en-US.json"]
        mixed["manifests/en-US.json.sig"] = s1.files(key)["manifests/en-US.json.sig"]
        var corrupt = s4.files(key)
        let trTR19 = s4.packs.first { $0.id == PackID(locale: "tr-TR", contentVersion: 19) }!
        let url19 = SiteLayout.pack(trTR19.id, sha256: SHA256.hex(trTR19.storedBytes))
        corrupt[url19] = Array(
            String(decoding: trTR19.storedBytes, as: UTF8.self).replacingOccurrences(of: "tr-TR@19", with: "tr-TR@91")
                .utf8)
        var badSig = s4.files(key)
        badSig["index.json.sig"] = Array(Base64.encode(Array(badSig["index.json.sig"]!.dropLast())).utf8)
        return [
            Round(
                "first refresh: every locale of the chain at its baseline", s1.files(key), "accepted", "tr-TR@17 title",
                "en-US@1 only"),
            Round("tr-TR@18 staged at 100% of TR", s2.files(key), "accepted", "tr-TR@18 title", "en-US@1 only"),
            Round(
                "a replayed older index is refused; nothing changes", s1.files(key), "refused", ["index-replayed"],
                "tr-TR@18 title", "en-US@1 only"),
            Round(
                "an index with manifests of earlier publishes (a cache mixed two publishes) is refused", mixed,
                "refused", ["damaged"], "tr-TR@18 title", "en-US@1 only"),
            Round("the current site after the mixed one", s3.files(key), "accepted", "tr-TR@18 title", "en-US@2 only"),
            Round(
                "a signature that is base64 of base64 is refused", badSig, "refused", ["bad-signature"],
                "tr-TR@18 title", "en-US@2 only"),
            Round(
                "a pack whose bytes do not match the manifest is not used; the rest of the round stands", corrupt,
                "partial", ["pack-mismatch"], "tr-TR@18 title", "en-US@2 only"),
            Round(
                "a revert blocks 18 and 19: back to the baseline", s5.files(key), "accepted", "tr-TR@17 title",
                "en-US@2 only"),
            Round(
                "the kill switch of tr-TR: its bundled strings for every key", s6.files(key), "accepted",
                "bundled tr-TR title", "bundled en-US only"),
            Round(
                "a new version completed ends the kill switch", s7.files(key), "accepted", "tr-TR@20 title",
                "en-US@2 only"),
        ]
    }

    // MARK: - Size limits

    /// The most a device reads of each kind of site file: the one table (SiteSizeLimits, which
    /// RolloutClient.SizeLimits is and the Java client's SizeLimits copies, checked by this kit).
    static let sizeLimits = SiteSizeLimits.table

    // Long: the cases are one table, each limit at it and one byte past it, as limits.json lists them.
    static func limits(key: Ed25519.PrivateKey) -> JSONValue {
        let site = refreshSites()[0]
        let files = site.files(key)
        let limit = Dictionary(uniqueKeysWithValues: sizeLimits.map { ($0.kind, $0.bytes) })
        let trTR17 = site.packs.first { $0.id == PackID(locale: "tr-TR", contentVersion: 17) }!
        let packURL = SiteLayout.pack(trTR17.id, sha256: SHA256.hex(trTR17.storedBytes))
        let bundledStrings = ("bundled tr-TR title", "bundled en-US only")
        let cases: [(name: String, path: String?, size: Int, result: String, reasons: [String], (String, String))] = [
            ("the site as published is accepted", nil, 0, "accepted", [], ("tr-TR@17 title", "en-US@1 only")),
            (
                "index.json of its limit + 1 bytes is refused, without reading it whole", SiteLayout.index,
                limit["index"]! + 1, "refused", ["too-large"], bundledStrings
            ),
            (
                "index.json of exactly its limit is read, and refused for its signature, not its size",
                SiteLayout.index, limit["index"]!, "refused", ["bad-signature"], bundledStrings
            ),
            (
                "index.json.sig of its limit + 1 bytes is refused", SiteLayout.signature(of: SiteLayout.index),
                limit["signature"]! + 1, "refused", ["too-large"], bundledStrings
            ),
            (
                "index.json.sig of exactly its limit is read, and refused for its signature",
                SiteLayout.signature(of: SiteLayout.index), limit["signature"]!, "refused", ["bad-signature"],
                bundledStrings
            ),
            (
                "a manifest of its limit + 1 bytes is refused", SiteLayout.manifest("tr"), limit["manifest"]! + 1,
                "refused", ["too-large"], bundledStrings
            ),
            (
                "a manifest of exactly its limit is read, and refused for its signature", SiteLayout.manifest("tr"),
                limit["manifest"]!, "refused", ["bad-signature"], bundledStrings
            ),
            (
                "a pack one byte longer than its manifest entry states is refused too-large (the read stops there); "
                    + "the packs of the round wait with it",
                packURL, trTR17.storedBytes.count + 1, "partial", ["too-large"], bundledStrings
            ),
        ]
        return [
            "about": """
            The size limits (docs/conformance.md, "limits.json"): limits lists the most a device reads of each kind of \
            file; a transport stops reading at bytes + 1 and fails with too-large, and a pack is read up to the size \
            its manifest entry states (never more than the pack limit). Each case starts a new device (device, bundled, \
            publicKey) on site; when grow is given, the file at grow.path is first extended with spaces (0x20) to \
            grow.bytes bytes. The device refreshes, activates what was staged, and looks up "title" and "en.only". \
            result and reasons as in refresh.json.
            """,
            "limits": .array(
                sizeLimits.map { ["kind": .string($0.kind), "files": .string($0.files), "bytes": .integer($0.bytes)] }),
            "publicKey": .string(key.publicKey.description), "device": device, "bundled": bundled,
            "site": siteJSON(files),
            "cases": .array(
                cases.map { c in
                    var item: [String: JSONValue] = [
                        "name": .string(c.name), "result": .string(c.result),
                        "reasons": .array(c.reasons.map { .string($0) }),
                        "strings": ["title": .string(c.5.0), "en.only": .string(c.5.1)],
                    ]
                    if let path = c.path { item["grow"] = ["path": .string(path), "bytes": .integer(c.size)] }
                    return .object(item)
                }),
        ]
    }

    /// The sites the refresh rounds publish, in order: baselines (s1), tr-TR@18 staged (s2), en-US@2
    /// (s3), tr-TR@19 staged (s4), a revert (s5), the kill switch of tr-TR (s6), and tr-TR@20 (s7).
    static func refreshSites() -> [Site] {
        let trTR17 = pack("tr-TR", 17, ["title": "tr-TR@17 title"], minApp: "4.8.0")
        let trTR18 = pack("tr-TR", 18, ["title": "tr-TR@18 title"], minApp: "4.8.0")
        let trTR19 = pack("tr-TR", 19, ["title": "tr-TR@19 title"], minApp: "4.8.0")
        let tr1 = pack("tr", 1, ["title": "tr@1 title"])
        let en1 = pack("en-US", 1, ["title": "en-US@1 title", "en.only": "en-US@1 only"])
        let en2 = pack("en-US", 2, ["title": "en-US@2 title", "en.only": "en-US@2 only"])
        let chains: [String: (chain: [String], fallback: [String]?)] = [
            "tr-TR": (["tr-TR", "tr", "en-US"], nil), "tr": (["tr", "en-US"], nil), "en-US": (["en-US"], nil),
        ]
        let packs = [trTR17, trTR18, trTR19, tr1, en1, en2]
        func staged(_ version: Int, _ bp: Int, sequence: Int, blocked: [Int] = []) -> Plan {
            var p = baselinePlan("tr-TR", 17, sequence: sequence, minApp: "4.8.0")
            p.setRules([
                Plan.Rule(
                    pack: .init(contentVersion: version, minAppVersion: AppVersion("4.8.0")!), regions: ["TR"],
                    versions: .all, share: Percent(basisPoints: bp), salt: salt)
            ])
            p.blocked = blocked
            return p
        }
        let s1 = Site(
            sequence: 3,
            plans: [baselinePlan("tr-TR", 17, minApp: "4.8.0"), baselinePlan("tr", 1), baselinePlan("en-US", 1)],
            chains: chains, packs: packs)
        var s2 = s1
        s2.sequence = 4
        s2.plans[0] = staged(18, 10000, sequence: 2)
        var s3 = s2
        s3.sequence = 5
        s3.plans[2] = baselinePlan("en-US", 2, sequence: 2)
        var s4 = s3
        s4.sequence = 6
        s4.plans[0] = staged(19, 10000, sequence: 3)
        var s5 = s4
        s5.sequence = 7
        var reverted = baselinePlan("tr-TR", 17, sequence: 4, minApp: "4.8.0")
        reverted.blocked = [18, 19]
        s5.plans[0] = reverted
        var s6 = s5
        s6.sequence = 8
        s6.plans[0] = Plan(
            locale: "tr-TR", baseline: .init(contentVersion: 17, minAppVersion: AppVersion("4.8.0")!),
            blocked: [17, 18, 19], bundledOnly: true, sequence: 5)
        s6.chains["tr-TR"] = (["tr-TR"], ["tr-TR", "tr", "en-US"])
        var s7 = s6
        s7.sequence = 9
        s7.plans[0] = baselinePlan("tr-TR", 20, sequence: 6, minApp: "4.8.0")
        s7.plans[0].blocked = [17, 18, 19]
        s7.chains["tr-TR"] = (["tr-TR", "tr", "en-US"], nil)
        s7.packs.append(pack("tr-TR", 20, ["title": "tr-TR@20 title"], minApp: "4.8.0"))
        return [s1, s2, s3, s4, s5, s6, s7]
    }
}
