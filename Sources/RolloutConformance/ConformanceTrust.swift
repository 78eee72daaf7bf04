import RolloutCrypto
import RolloutModel

/// `trust.json` (docs/conformance.md, "trust.json"): what a device on a key list accepts from a
/// site, case by case: the roots built into the app, the key list it holds, the site's key lists
/// and index with their `.sigs`, and the outcome. Each expected outcome is what the Swift core
/// (`KeyChain`) decides, and each case states the outcome it was written for: a core that decides
/// otherwise stops the generator, so a vector never says what its name does not.
extension ConformanceVectors {
    /// The keys of the trust cases, from fixed seeds like every conformance key.
    struct TrustKeys {
        let root1, root2, root3, root4, root5, stranger, publish1, publish2: Ed25519.PrivateKey

        init() throws {
            func key(_ name: String) throws -> Ed25519.PrivateKey { try testKey("rollout conformance trust \(name)") }
            root1 = try key("root 1")
            root2 = try key("root 2")
            root3 = try key("root 3")
            root4 = try key("root 4")
            root5 = try key("root 5")
            stranger = try key("stranger root")
            publish1 = try key("publishing 1")
            publish2 = try key("publishing 2")
        }
    }

    static let trustNow = Timestamp(iso8601: "2026-12-01T00:00:00Z")!
    static let day: Int64 = 86_400

    /// Key list `version`, made `version` days after 2026-10-01.
    static func keyList(
        _ version: Int, roots: [Ed25519.PrivateKey], threshold: Int = 1,
        publishing: [(Ed25519.PrivateKey, expires: Timestamp)],
        revoked: [(Ed25519.PrivateKey, reason: String)] = [], rootChanges: [Int] = [1]
    ) -> KeyList {
        let created = Timestamp(iso8601: "2026-10-01T00:00:00Z")!
        return KeyList(
            version: version, time: Timestamp(seconds: created.seconds + Int64(version) * day),
            roots: .init(keys: roots.map(\.publicKey), threshold: threshold),
            publishing: Dictionary(
                uniqueKeysWithValues: publishing.map { key, expires in
                    (
                        key.publicKey.keyID,
                        KeyList.PublishingKey(publicKey: key.publicKey, created: created, expires: expires)
                    )
                }),
            revoked: Dictionary(
                uniqueKeysWithValues: revoked.map { key, reason in
                    (
                        key.publicKey.keyID,
                        KeyList.Revocation(
                            time: Timestamp(seconds: created.seconds + Int64(version) * day), reason: reason)
                    )
                }),
            rootChanges: rootChanges)
    }

    /// A site's trust files, written the way `rollout publish` writes them.
    struct TrustSite {
        var files: [String: [UInt8]] = [:]

        /// `lists` oldest first, each with the keys that sign it: the last is `keys.json`, and every
        /// version in its `rootChanges` is also at `keys/<n>.json`.
        init(_ lists: [(KeyList, [Ed25519.PrivateKey])], index: SiteIndex, signedBy signers: [Ed25519.PrivateKey]) {
            guard let (latest, latestSigners) = lists.last else { preconditionFailure("a site needs a key list") }
            for (list, keys) in lists where latest.rootChanges.contains(list.version) {
                put(SiteLayout.keys(version: list.version), list.bytes, keys)
            }
            put(SiteLayout.keys, latest.bytes, latestSigners)
            put(SiteLayout.index, index.bytes, signers)
        }

        mutating func put(_ path: String, _ bytes: [UInt8], _ signers: [Ed25519.PrivateKey]) {
            files[path] = bytes
            files[SiteLayout.signatures(of: path)] = SignatureSet.signing(bytes, with: signers).bytes
        }
    }

    static func trustIndex(_ sequence: Int, expires: Timestamp?) -> SiteIndex {
        SiteIndex(
            sequence: sequence, time: Timestamp(seconds: trustNow.seconds - day), expires: expires,
            defaultLocale: "en-US",
            locales: ["en-US": SiteIndex.Entry(sequence: 1, manifest: SiteLayout.manifest("en-US"), chain: ["en-US"])])
    }

    /// What a device believes before a round: the roots, threshold, minimum index sequence and
    /// minimum key list version built into the app, the key list it holds with the built-in roots of
    /// the app that accepted it (nil: not recorded), and the newest index sequence it accepted.
    struct TrustDevice {
        var roots: [Ed25519.PrivateKey]
        var threshold = 1
        var minimumIndexSequence = 0
        var minimumKeysVersion = 0
        var keyList: KeyList?
        var anchoredTo: KeyList.Roots?
        var acceptedIndexSequence = 0

        var anchor: KeyChain.Anchor {
            .init(
                roots: .init(keys: roots.map(\.publicKey), threshold: threshold), list: keyList,
                minimumVersion: minimumKeysVersion,
                anchoredTo: anchoredTo)
        }

        var jsonValue: JSONValue {
            [
                "rootKeys": .array(roots.map { .string($0.publicKey.description) }), "threshold": .integer(threshold),
                "minimumIndexSequence": .integer(minimumIndexSequence),
                "minimumKeysVersion": .integer(minimumKeysVersion),
                "keyList": keyList.map { base64($0.bytes) } ?? .null,
                "anchoredTo": anchoredTo.map {
                    [
                        "threshold": .integer($0.threshold),
                        "keys": .object($0.keys.mapValues { .string($0.description) }),
                    ]
                } ?? .null,
                "acceptedIndexSequence": .integer(acceptedIndexSequence),
            ]
        }
    }

    /// The outcome of one round.
    enum TrustOutcome: Equatable {
        case accepted(keysVersion: Int, indexSequence: Int)
        /// `keysVersion`: the list the device holds afterwards (a list accepted before the index
        /// was refused stays: its revocations take effect at once).
        case refused(String, keysVersion: Int?)

        var jsonValue: JSONValue {
            switch self {
            case .accepted(let keys, let sequence):
                return ["accepted": ["keysVersion": .integer(keys), "indexSequence": .integer(sequence)]]
            case .refused(let code, let keys):
                return ["refused": .string(code), "keysVersion": keys.map { .integer($0) } ?? .null]
            }
        }
    }

    /// The order of a device (docs/conformance.md, "trust.json"): the key list, walking root
    /// changes when needed; then the index's publishing key, at `now`; then its sequence and expiry.
    static func trustDecision(_ device: TrustDevice, site: [String: [UInt8]], now: Timestamp) -> TrustOutcome {
        func signed(_ path: String) -> SignedFile {
            SignedFile(path: path, bytes: site[path] ?? [], signatures: site[SiteLayout.signatures(of: path)] ?? [])
        }
        var holds = device.keyList?.version
        do {
            let latest = signed(SiteLayout.keys)
            var rotations: [Int: SignedFile] = [:]
            for version in KeyChain.rotationsNeeded(latest, anchor: device.anchor)
            where site[SiteLayout.keys(version: version)] != nil {
                rotations[version] = signed(SiteLayout.keys(version: version))
            }
            let list = try KeyChain.accept(latest, rotations: rotations, anchor: device.anchor)
            holds = list.version
            let indexFile = signed(SiteLayout.index)
            try KeyChain.publisher(of: indexFile, list: list, now: now)
            let index: SiteIndex
            do {
                index = try SiteIndex.parse(indexFile.bytes, source: SiteLayout.index)
            } catch let error as RolloutError {
                throw TrustFailure.damaged(file: SiteLayout.index, why: error.message)
            }
            try KeyChain.checkIndex(
                index, now: now, accepted: device.acceptedIndexSequence, builtInMinimum: device.minimumIndexSequence,
                requireExpiry: true)
            return .accepted(keysVersion: list.version, indexSequence: index.sequence)
        } catch let failure as TrustFailure {
            return .refused(failure.code, keysVersion: holds)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// One case of `trust.json`: a device, a site, and the outcome it was written for.
    typealias TrustCase = (name: String, device: TrustDevice, site: TrustSite, intended: TrustOutcome)

    static func trust() throws -> JSONValue {
        let fixtures = try TrustFixtures()
        let now = fixtures.now
        let cases =
            fixtures.publishingCases() + fixtures.rootChangeCases() + fixtures.thresholdAndDamageCases()
            + fixtures.minimumCases()
        var out: [JSONValue] = []
        for (name, device, site, intended) in cases {
            let outcome = trustDecision(device, site: site.files, now: now)
            precondition(
                outcome == intended,
                "trust.json \"\(name)\": the core decides \(outcome), the case was written for \(intended)")
            out.append([
                "name": .string(name), "device": device.jsonValue, "now": .string(now.description),
                "site": siteJSON(site.files),
                "expected": outcome.jsonValue,
            ])
        }
        return [
            "about": """
            A device on a key list (docs/keys.md) against one site. device: the root keys and threshold built into the app, \
            its built-in minimum index sequence and minimum key list version, the key list it holds (base64 of keys.json, or \
            null), anchoredTo (the built-in roots of the app that accepted that list, or null: not recorded) and the newest \
            index sequence it accepted. The roots it trusts are the held list's, unless anchoredTo differs from the built-in \
            roots: then the built-in ones, walking root changes from version 1. site: path to base64 bytes. In this order: \
            accept keys.json (walking keys/<n>.json for root changes when the roots it trusts did not sign it), then the \
            index's publishing key at now, then the index's sequence and expiry. expected: accepted (the key list version \
            and index sequence), or refused with the code of the first check that failed, and keysVersion, the key list the \
            device holds afterwards.
            """,
            "cases": .array(out),
        ]
    }

    /// The keys, key lists, sites and devices the trust cases are written with.
    struct TrustFixtures {
        let k: TrustKeys
        let now = trustNow
        let year: Timestamp
        let week: Timestamp
        let good: SiteIndex
        let v1, v2, v2r, rot2, rot3, rot4, rot5, t2: KeyList
        let three: [Ed25519.PrivateKey]

        init() throws {
            let k = try TrustKeys()
            let year = Timestamp(iso8601: "2027-10-01T00:00:00Z")!
            self.k = k
            self.year = year
            week = Timestamp(seconds: trustNow.seconds + 7 * day)
            good = trustIndex(5, expires: week)
            v1 = keyList(1, roots: [k.root1], publishing: [(k.publish1, year)])
            // v2 rotates the publishing key (publish1 retired before now); v2r revokes it instead.
            let retired = Timestamp(iso8601: "2026-11-15T00:00:00Z")!
            v2 = keyList(2, roots: [k.root1], publishing: [(k.publish1, retired), (k.publish2, year)])
            v2r = keyList(2, roots: [k.root1], publishing: [(k.publish2, year)], revoked: [(k.publish1, "laptop lost")])
            // Root rotation: root1 -> root4 at version 2, root4 -> root5 at version 4.
            rot2 = keyList(2, roots: [k.root4], publishing: [(k.publish1, year)], rootChanges: [1, 2])
            rot3 = keyList(3, roots: [k.root4], publishing: [(k.publish2, year)], rootChanges: [1, 2])
            rot4 = keyList(4, roots: [k.root5], publishing: [(k.publish2, year)], rootChanges: [1, 2, 4])
            rot5 = keyList(5, roots: [k.root5], publishing: [(k.publish2, year)], rootChanges: [1, 2, 4])
            let three = [k.root1, k.root2, k.root3]
            self.three = three
            t2 = keyList(1, roots: three, threshold: 2, publishing: [(k.publish1, year)])
        }

        func site(
            _ lists: [(KeyList, [Ed25519.PrivateKey])], index: SiteIndex? = nil, by signers: [Ed25519.PrivateKey]? = nil
        ) -> TrustSite {
            TrustSite(lists, index: index ?? good, signedBy: signers ?? [k.publish1])
        }
        func fresh(_ roots: [Ed25519.PrivateKey]? = nil, threshold: Int = 1) -> TrustDevice {
            TrustDevice(roots: roots ?? [k.root1], threshold: threshold)
        }
        func holding(_ list: KeyList, accepted: Int = 0) -> TrustDevice {
            TrustDevice(roots: [k.root1], keyList: list, acceptedIndexSequence: accepted)
        }

        // Long: a flat list of conformance cases, one entry per case (docs/conformance.md).
        /// Publishing keys, expiry, revocation, replays and roles.
        func publishingCases() -> [TrustCase] {
            var changedIndex = site([(v1, [k.root1])])
            changedIndex.files["index.json"] = trustIndex(6, expires: week).bytes
            return [
                (
                    "good: a fresh install accepts key list 1 and the index its publishing key signed", fresh(),
                    site([(v1, [k.root1])]),
                    .accepted(keysVersion: 1, indexSequence: 5)
                ),
                (
                    "good: the key list the device holds, served again", holding(v1, accepted: 4),
                    site([(v1, [k.root1])]),
                    .accepted(keysVersion: 1, indexSequence: 5)
                ),
                (
                    "a rotated publishing key: key list 2, the index signed by the new key", holding(v1, accepted: 4),
                    site([(v2, [k.root1])], index: trustIndex(6, expires: week), by: [k.publish2]),
                    .accepted(keysVersion: 2, indexSequence: 6)
                ),
                (
                    "signed by a retired and a current key: the current one vouches", holding(v1),
                    site([(v2, [k.root1])], by: [k.publish1, k.publish2]),
                    .accepted(keysVersion: 2, indexSequence: 5)
                ),
                (
                    "expired index: a frozen site", fresh(),
                    site([(v1, [k.root1])], index: trustIndex(5, expires: Timestamp(seconds: now.seconds - 3600))),
                    .refused("index-expired", keysVersion: 1)
                ),
                (
                    "an index that expires exactly now is expired", fresh(),
                    site([(v1, [k.root1])], index: trustIndex(5, expires: now)),
                    .refused("index-expired", keysVersion: 1)
                ),
                (
                    "an index without expires", fresh(), site([(v1, [k.root1])], index: trustIndex(5, expires: nil)),
                    .refused("index-without-expiry", keysVersion: 1)
                ),
                (
                    "expired key: the index signed by a publishing key past its expiry", holding(v1),
                    site([(v2, [k.root1])]),
                    .refused("expired-key", keysVersion: 2)
                ),
                (
                    "an expired key and then a root key: the first reason found is given", holding(v1),
                    site([(v2, [k.root1])], by: [k.publish1, k.root1]),
                    .refused("expired-key", keysVersion: 2)
                ),
                (
                    "revoked key: key list 2 revokes the key that signed the index; the device keeps list 2",
                    holding(v1), site([(v2r, [k.root1])]),
                    .refused("revoked-key", keysVersion: 2)
                ),
                (
                    "a revoked key is the reason given before a root key's signature", holding(v1),
                    site([(v2r, [k.root1])], by: [k.root1, k.publish1]),
                    .refused("revoked-key", keysVersion: 2)
                ),
                (
                    "a revoked key's signature beside a good one: the good one vouches", holding(v1),
                    site([(v2r, [k.root1])], by: [k.publish1, k.publish2]),
                    .accepted(keysVersion: 2, indexSequence: 5)
                ),
                (
                    "replayed key list: the device holds list 2, the site serves list 1", holding(v2r),
                    site([(v1, [k.root1])]),
                    .refused("keys-replayed", keysVersion: 2)
                ),
                (
                    "two key lists with one version", holding(v2r), site([(v2, [k.root1])], by: [k.publish2]),
                    .refused("keys-conflict", keysVersion: 2)
                ),
                (
                    "revocation dropped: list 3 no longer revokes what list 2 revoked", holding(v2r),
                    site(
                        [(keyList(3, roots: [k.root1], publishing: [(k.publish2, year)]), [k.root1])], by: [k.publish2]),
                    .refused("revocation-dropped", keysVersion: 2)
                ),
                (
                    "replayed index: older than the index the device accepted", holding(v1, accepted: 7),
                    site([(v1, [k.root1])]),
                    .refused("index-replayed", keysVersion: 1)
                ),
                (
                    "the index the device accepted, served again", holding(v1, accepted: 5), site([(v1, [k.root1])]),
                    .accepted(keysVersion: 1, indexSequence: 5)
                ),
                (
                    "below the minimum sequence built into the app: a fresh install shown an old site",
                    TrustDevice(roots: [k.root1], minimumIndexSequence: 6), site([(v1, [k.root1])]),
                    .refused("below-minimum-sequence", keysVersion: 1)
                ),
                (
                    "wrong role: a root key signs the index", fresh(), site([(v1, [k.root1])], by: [k.root1]),
                    .refused("wrong-role", keysVersion: 1)
                ),
                (
                    "wrong role: a publishing key signs keys.json", fresh(), site([(v1, [k.publish1])]),
                    .refused("wrong-role", keysVersion: nil)
                ),
                (
                    "wrong root: keys.json signed by a root this app does not trust", fresh(),
                    site([(keyList(1, roots: [k.stranger], publishing: [(k.publish1, year)]), [k.stranger])]),
                    .refused("not-signed-by-trusted-roots", keysVersion: nil)
                ),
                (
                    "the index signed by a key the list does not name", fresh(),
                    site([(v1, [k.root1])], by: [k.publish2]),
                    .refused("unknown-key", keysVersion: 1)
                ),
                (
                    "the index changed after it was signed", fresh(), changedIndex,
                    .refused("unknown-key", keysVersion: 1)
                ),
            ]
        }

        /// Walking root changes.
        func rootChangeCases() -> [TrustCase] {
            var missingRootChange = site(
                [(v1, [k.root1]), (rot2, [k.root1, k.root4]), (rot3, [k.root4])], by: [k.publish2])
            missingRootChange.files["keys/2.json"] = nil
            missingRootChange.files["keys/2.json.sigs"] = nil
            // A root change the old root did not sign: someone else's roots, slipped in as keys/2.json.
            let forged2 = keyList(2, roots: [k.stranger], publishing: [(k.publish2, year)], rootChanges: [1, 2])
            let forged3 = keyList(3, roots: [k.stranger], publishing: [(k.publish2, year)], rootChanges: [1, 2])
            return [
                (
                    "rotated root walked: an app with root 1 built in follows keys/2.json to root 4", fresh(),
                    site([(v1, [k.root1]), (rot2, [k.root1, k.root4]), (rot3, [k.root4])], by: [k.publish2]),
                    .accepted(keysVersion: 3, indexSequence: 5)
                ),
                (
                    "rotated root walked from the key list the device holds", holding(v1),
                    site([(v1, [k.root1]), (rot2, [k.root1, k.root4]), (rot3, [k.root4])], by: [k.publish2]),
                    .accepted(keysVersion: 3, indexSequence: 5)
                ),
                (
                    "rotated root built in: an app built after the change needs no walk", fresh([k.root4]),
                    site([(v1, [k.root1]), (rot2, [k.root1, k.root4]), (rot3, [k.root4])], by: [k.publish2]),
                    .accepted(keysVersion: 3, indexSequence: 5)
                ),
                (
                    "two root changes: an app with root 4 built in skips keys/1.json, which it cannot check",
                    fresh([k.root4]),
                    site(
                        [
                            (v1, [k.root1]), (rot2, [k.root1, k.root4]), (rot3, [k.root4]), (rot4, [k.root4, k.root5]),
                            (rot5, [k.root5]),
                        ], by: [k.publish2]),
                    .accepted(keysVersion: 5, indexSequence: 5)
                ),
                (
                    "a root change missing from the site: the device cannot reach the new root", fresh(),
                    missingRootChange,
                    .refused("not-signed-by-trusted-roots", keysVersion: nil)
                ),
                (
                    "a root change the old root did not sign is not walked", fresh(),
                    site([(v1, [k.root1]), (forged2, [k.stranger]), (forged3, [k.stranger])], by: [k.publish2]),
                    .refused("not-signed-by-trusted-roots", keysVersion: nil)
                ),
                (
                    "a root change signed by the old root but not by its own new root", holding(v1),
                    site([(v1, [k.root1]), (rot2, [k.root1]), (rot3, [k.root4])], by: [k.publish2]),
                    .refused("not-signed-by-trusted-roots", keysVersion: 1)
                ),
            ]
        }

        // Long: a flat list of conformance cases, one entry per case (docs/conformance.md).
        /// Thresholds, and damaged or oversized files.
        func thresholdAndDamageCases() -> [TrustCase] {
            var damagedKeysSigs = site([(v1, [k.root1])])
            damagedKeysSigs.files["keys.json.sigs"] = Array(
                #"{"format":"rollout-signatures/1","signatures":[{"keyid":"1a2b"#.utf8)
            var shortIndexSig = site([(v1, [k.root1])])
            let indexSigs = SignatureSet.signing(good.bytes, with: [k.publish1])
            shortIndexSig.files["index.json.sigs"] =
                SignatureSet([
                    .init(
                        keyID: indexSigs.entries[0].keyID, signature: Array(indexSigs.entries[0].signature.prefix(63)))
                ]).bytes
            var manySigs = site([(v1, [k.root1])])
            manySigs.files["index.json.sigs"] =
                SignatureSet(Array(repeating: indexSigs.entries[0], count: SignatureSet.maximumEntries + 1)).bytes
            // The signature's base64 with a padding bit set: the same 64 bytes to a lax decoder, not the canonical text.
            var looseBase64 = site([(v1, [k.root1])])
            let canonical = Array(Base64.encode(indexSigs.entries[0].signature).utf8)
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
            var loose = canonical
            loose[loose.count - 3] = alphabet[alphabet.firstIndex(of: loose[loose.count - 3])! ^ 1]
            looseBase64.files["index.json.sigs"] = Array(
                String(decoding: indexSigs.bytes, as: UTF8.self).replacingOccurrences(
                    of: String(decoding: canonical, as: UTF8.self), with: String(decoding: loose, as: UTF8.self)
                ).utf8)
            var duplicateMember = site([(v1, [k.root1])])
            duplicateMember.files["index.json.sigs"] = Array(
                String(decoding: indexSigs.bytes, as: UTF8.self).replacingOccurrences(
                    of: "{\"format\"", with: "{\"format\":\"x\",\"format\""
                ).utf8)
            var misnamed = site([(v1, [k.root1])])
            let misnamedList = Array(
                String(decoding: v1.bytes, as: UTF8.self)
                    .replacingOccurrences(of: k.publish1.publicKey.keyID, with: k.publish2.publicKey.keyID).utf8)
            misnamed.put(SiteLayout.keys, misnamedList, [k.root1])
            var twiceSigned = site([(t2, [k.root1])])
            twiceSigned.put(SiteLayout.keys, t2.bytes, [k.root1, k.root1])
            return [
                (
                    "threshold 2 of 3 met", fresh(three, threshold: 2), site([(t2, [k.root1, k.root3])]),
                    .accepted(keysVersion: 1, indexSequence: 5)
                ),
                (
                    "threshold 2 of 3 unmet", fresh(three, threshold: 2), site([(t2, [k.root2])]),
                    .refused("not-signed-by-trusted-roots", keysVersion: nil)
                ),
                (
                    "threshold 2 of 3 unmet: one root's signature twice", fresh(three, threshold: 2), twiceSigned,
                    .refused("not-signed-by-trusted-roots", keysVersion: nil)
                ),
                (
                    "a key list that needs more of its own roots than signed it", fresh(three),
                    site([(t2, [k.root1])]), .refused("not-signed-by-own-roots", keysVersion: nil)
                ),
                ("damaged keys.json.sigs: cut short", fresh(), damagedKeysSigs, .refused("damaged", keysVersion: nil)),
                (
                    "damaged index.json.sigs: a 63-byte signature", fresh(), shortIndexSig,
                    .refused("damaged", keysVersion: 1)
                ),
                (
                    "index.json.sigs with more signatures than a device reads", fresh(), manySigs,
                    .refused("damaged", keysVersion: 1)
                ),
                (
                    "index.json.sigs: a signature whose base64 has a padding bit set", fresh(), looseBase64,
                    .refused("damaged", keysVersion: 1)
                ),
                (
                    "index.json.sigs: a member given twice", fresh(), duplicateMember,
                    .refused("damaged", keysVersion: 1)
                ),
                (
                    "a key list with more root changes than a device walks", fresh(),
                    site([
                        (
                            keyList(
                                66, roots: [k.stranger], publishing: [(k.publish1, year)], rootChanges: Array(1...65)),
                            [k.stranger]
                        )
                    ]),
                    .refused("damaged", keysVersion: nil)
                ),
                (
                    "damaged keys.json: a key listed under another key's id", fresh(), misnamed,
                    .refused("damaged", keysVersion: nil)
                ),
            ]
        }

        // Long: a flat list of conformance cases, one entry per case (docs/conformance.md).
        /// Minimum versions built into the app, root changes left unrecorded, built-in roots an update changes.
        func minimumCases() -> [TrustCase] {
            // Root 4 leaked after the device walked to it; the team moved to root 5 in list 3 and shipped
            // an app with root 5 built in. The device's list was accepted by the app with root 1.
            let updated = TrustDevice(
                roots: [k.root5], keyList: rot2, anchoredTo: .init(keys: [k.root1.publicKey], threshold: 1))
            let leaked3 = keyList(3, roots: [k.root4], publishing: [(k.stranger, year)], rootChanges: [1, 2])
            let team3 = keyList(3, roots: [k.root5], publishing: [(k.publish2, year)], rootChanges: [1, 2, 3])
            let unrecorded2 = keyList(2, roots: [k.root1, k.root4], publishing: [(k.publish1, year)])
            let rewritten3 = keyList(3, roots: [k.root4], publishing: [(k.publish2, year)], rootChanges: [1, 3])
            let notEnding2 = keyList(2, roots: [k.root4], publishing: [(k.publish1, year)])
            return [
                (
                    "below the minimum key list version built into the app: a fresh install shown the list from before a revocation",
                    TrustDevice(roots: [k.root1], minimumKeysVersion: 2), site([(v1, [k.root1])]),
                    .refused("below-minimum-keys-version", keysVersion: nil)
                ),
                (
                    "the minimum key list version itself", TrustDevice(roots: [k.root1], minimumKeysVersion: 2),
                    site([(v2r, [k.root1])], by: [k.publish2]),
                    .accepted(keysVersion: 2, indexSequence: 5)
                ),
                (
                    "a held key list newer than the minimum is unaffected",
                    TrustDevice(roots: [k.root1], minimumKeysVersion: 2, keyList: v2r),
                    site([(v2r, [k.root1])], by: [k.publish2]), .accepted(keysVersion: 2, indexSequence: 5)
                ),
                (
                    "an app updated with a higher minimum refuses the older list the device held",
                    TrustDevice(roots: [k.root1], minimumKeysVersion: 2, keyList: v1), site([(v1, [k.root1])]),
                    .refused("below-minimum-keys-version", keysVersion: 1)
                ),
                (
                    "root change unrecorded: list 2 adds a root without recording version 2 in rootChanges",
                    holding(v1),
                    site([(unrecorded2, [k.root1, k.root4])]), .refused("root-change-unrecorded", keysVersion: 1)
                ),
                (
                    "root change unrecorded: list 3 rewrites the rootChanges of the list the device holds",
                    TrustDevice(roots: [k.root1], keyList: rot2), site([(rewritten3, [k.root4])], by: [k.publish2]),
                    .refused("root-change-unrecorded", keysVersion: 2)
                ),
                (
                    "a keys/2.json whose rootChanges does not end with 2 is not walked", holding(v1),
                    site([(v1, [k.root1]), (notEnding2, [k.root1, k.root4]), (rot3, [k.root4])], by: [k.publish2]),
                    .refused("not-signed-by-trusted-roots", keysVersion: 1)
                ),
                (
                    "built-in roots as recorded: the held list's roots count",
                    TrustDevice(
                        roots: [k.root1], keyList: rot2, anchoredTo: .init(keys: [k.root1.publicKey], threshold: 1)),
                    site([(rot3, [k.root4])], by: [k.publish2]), .accepted(keysVersion: 3, indexSequence: 5)
                ),
                (
                    "built-in roots changed by an app update: a list signed by the old held roots alone is refused",
                    updated,
                    site([(leaked3, [k.root4])], by: [k.stranger]),
                    .refused("not-signed-by-trusted-roots", keysVersion: 2)
                ),
                (
                    "built-in roots changed by an app update: the team's list signed by the new built-in roots is accepted",
                    updated,
                    site([(team3, [k.root5])], by: [k.publish2]), .accepted(keysVersion: 3, indexSequence: 5)
                ),
                (
                    "built-in roots changed by an app update: the held list served again counts only if they reach it",
                    updated,
                    site([(v1, [k.root1]), (rot2, [k.root1, k.root4])]),
                    .refused("not-signed-by-trusted-roots", keysVersion: 2)
                ),
                (
                    "an update to an app built with older roots walks root changes from its own roots",
                    TrustDevice(
                        roots: [k.root4], keyList: rot4, anchoredTo: .init(keys: [k.root1.publicKey], threshold: 1)),
                    site(
                        [
                            (v1, [k.root1]), (rot2, [k.root1, k.root4]), (rot3, [k.root4]), (rot4, [k.root4, k.root5]),
                            (rot5, [k.root5]),
                        ], by: [k.publish2]),
                    .accepted(keysVersion: 5, indexSequence: 5)
                ),
            ]
        }
    }
}
