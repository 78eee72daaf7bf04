// Signing exists only over OpenSSL (RolloutCrypto): these tests make their key lists where it is.
#if !canImport(CryptoKit)
    import RolloutCrypto
    import RolloutModel
    import XCTest

    /// What a device trusts (docs/keys.md, "What a device checks"): which key lists it accepts, which
    /// publishing key vouches for an index, and which index it switches to. Every key comes from a fixed
    /// seed, so a failure reproduces byte for byte.
    final class KeyChainTests: XCTestCase {
        private static func key(_ label: String) -> Ed25519.PrivateKey {
            // SHA-256 of the label as the RFC 8032 private key, in PKCS#8.
            let header: [UInt8] = [
                0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
            ]
            let der = header + SHA256.digest(Array("key-chain test \(label)".utf8))
            return try! .pem("-----BEGIN PRIVATE KEY-----\n\(Base64.encode(der))\n-----END PRIVATE KEY-----\n")
        }

        private let root1 = KeyChainTests.key("root 1"), root2 = KeyChainTests.key("root 2"),
            root3 = KeyChainTests.key("root 3")
        private let root4 = KeyChainTests.key("root 4"), root5 = KeyChainTests.key("root 5"),
            stranger = KeyChainTests.key("stranger")
        private let publish1 = KeyChainTests.key("publishing 1"), publish2 = KeyChainTests.key("publishing 2")

        private let start = Timestamp(iso8601: "2026-10-01T00:00:00Z")!
        private let now = Timestamp(iso8601: "2026-12-01T00:00:00Z")!
        private let nextYear = Timestamp(iso8601: "2027-10-01T00:00:00Z")!

        private func list(
            _ version: Int, roots: [Ed25519.PrivateKey], threshold: Int = 1,
            publishing: [(Ed25519.PrivateKey, Timestamp)]? = nil,
            revoked: [Ed25519.PrivateKey] = [], rootChanges: [Int] = [1]
        ) -> KeyList {
            let publishing = publishing ?? [(publish1, nextYear)]
            return KeyList(
                version: version, time: Timestamp(seconds: start.seconds + Int64(version) * 86_400),
                roots: .init(keys: roots.map(\.publicKey), threshold: threshold),
                publishing: Dictionary(
                    uniqueKeysWithValues: publishing.map {
                        ($0.0.publicKey.keyID, .init(publicKey: $0.0.publicKey, created: start, expires: $0.1))
                    }),
                revoked: Dictionary(
                    uniqueKeysWithValues: revoked.map { ($0.publicKey.keyID, .init(time: start, reason: "lost")) }),
                rootChanges: rootChanges)
        }

        private func sigs(_ bytes: [UInt8], _ keys: [Ed25519.PrivateKey]) -> [UInt8] {
            SignatureSet.signing(bytes, with: keys).bytes
        }

        private func file(_ list: KeyList, _ keys: [Ed25519.PrivateKey], path: String = "keys.json") -> SignedFile {
            SignedFile(path: path, bytes: list.bytes, signatures: sigs(list.bytes, keys))
        }

        private func anchor(
            _ roots: [Ed25519.PrivateKey], threshold: Int = 1, holding: KeyList? = nil, minimum: Int = 0,
            anchoredTo: [Ed25519.PrivateKey]? = nil
        ) -> KeyChain.Anchor {
            .init(
                roots: self.roots(roots, threshold: threshold), list: holding, minimumVersion: minimum,
                anchoredTo: anchoredTo.map { self.roots($0) })
        }

        private func roots(_ keys: [Ed25519.PrivateKey], threshold: Int = 1) -> KeyList.Roots {
            .init(keys: keys.map(\.publicKey), threshold: threshold)
        }

        private func refusal(_ body: () throws -> Any) -> TrustFailure? {
            do {
                _ = try body()
                return nil
            } catch let failure as TrustFailure {
                return failure
            } catch {
                XCTFail("not a TrustFailure: \(error)")
                return nil
            }
        }

        private func accepted(_ latest: SignedFile, rotations: [SignedFile] = [], anchor: KeyChain.Anchor) throws
            -> KeyList
        {
            var byVersion: [Int: SignedFile] = [:]
            for file in rotations { byVersion[try KeyList.parse(file.bytes, source: file.path).version] = file }
            XCTAssertEqual(
                KeyChain.rotationsNeeded(latest, anchor: anchor).filter { byVersion[$0] != nil }.sorted(),
                byVersion.keys.sorted(),
                "the rotations a device fetches are the ones given")
            return try KeyChain.accept(latest, rotations: byVersion, anchor: anchor)
        }

        // MARK: - KeyList

        func testAKeyListReadsBackFromItsCanonicalBytes() throws {
            let original = list(
                3, roots: [root1, root2], threshold: 2, publishing: [(publish2, nextYear)], revoked: [publish1],
                rootChanges: [1, 3])
            XCTAssertEqual(try KeyList.parse(original.bytes, source: "keys.json"), original)
            XCTAssertEqual(original.role(of: root1.publicKey.keyID), "root")
            XCTAssertEqual(original.role(of: publish2.publicKey.keyID), "publishing")
            XCTAssertEqual(original.role(of: publish1.publicKey.keyID), "revoked")
            XCTAssertNil(original.role(of: stranger.publicKey.keyID))
        }

        func testAKeyIdIsTheFirst16HexDigitsOfTheSHA256OfTheRawKey() {
            XCTAssertEqual(root1.publicKey.keyID, String(SHA256.hex(root1.publicKey.raw).prefix(16)))
            XCTAssertEqual(root1.publicKey.keyID.count, 16)
        }

        func testAListNoDeviceMayTrustIsRefusedWithItsProblem() {
            var noRoots = list(1, roots: [])
            noRoots.roots.threshold = 1
            var unreachable = list(1, roots: [root1, root2], threshold: 2)
            unreachable.roots.threshold = 3
            var zero = list(1, roots: [root1])
            zero.roots.threshold = 0
            let twoRoles = list(1, roots: [root1], publishing: [(root1, nextYear)])
            var revokedRoot = list(1, roots: [root1])
            revokedRoot.revoked[root1.publicKey.keyID] = .init(time: start, reason: "x")
            var revokedPublishing = list(1, roots: [root1])
            revokedPublishing.revoked[publish1.publicKey.keyID] = .init(time: start, reason: "x")
            let backwards = list(1, roots: [root1], publishing: [(publish1, Timestamp(seconds: start.seconds - 1))])
            let cases: [(String, KeyList, String)] = [
                ("no root", noRoots, "lists no root key"),
                ("a threshold past the roots", unreachable, "needs 3 root signature(s) but lists 2 root key(s)"),
                ("threshold 0", zero, "needs 0 root signature(s)"),
                ("a root that publishes", twoRoles, "is both a root and a publishing key"),
                ("a revoked root", revokedRoot, "is revoked and still listed as a root key"),
                (
                    "a revoked publishing key still listed", revokedPublishing,
                    "is revoked and still listed as a publishing key"
                ),
                ("a key that expires before it was made", backwards, "expires before it was created"),
                ("root changes not from 1", list(3, roots: [root1], rootChanges: [2]), "rootChanges must start at 1"),
                (
                    "root changes not growing", list(3, roots: [root1], rootChanges: [1, 3, 2]),
                    "rootChanges must start at 1"
                ),
                ("root changes repeated", list(3, roots: [root1], rootChanges: [1, 1]), "rootChanges must start at 1"),
                (
                    "root changes past the version", list(2, roots: [root1], rootChanges: [1, 3]),
                    "rootChanges must start at 1"
                ),
                ("no root changes", list(2, roots: [root1], rootChanges: []), "rootChanges must start at 1"),
            ]
            for (name, bad, problem) in cases {
                XCTAssertTrue(bad.problem?.contains(problem) == true, "\(name): \(bad.problem ?? "no problem")")
                XCTAssertThrowsError(try KeyList.parse(bad.bytes, source: "keys.json"), name) { error in
                    XCTAssertTrue("\(error)".contains("keys.json: "), "\(name): \(error)")
                }
            }
            XCTAssertNil(
                list(4, roots: [root1], rootChanges: [1, 2, 4]).problem, "a root change at the list's own version")
        }

        func testParseRefusesKeysItCannotVouchFor() {
            let good = String(decoding: list(1, roots: [root1]).bytes, as: UTF8.self)
            let p1 = publish1.publicKey
            let edits: [(String, String)] = [
                (
                    "a key under another key's id",
                    good.replacingOccurrences(of: "\"\(p1.keyID)\"", with: "\"\(publish2.publicKey.keyID)\"")
                ),
                (
                    "a key without its ed25519: prefix",
                    good.replacingOccurrences(of: p1.description, with: Base64.encode(p1.raw))
                ),
                (
                    "a key of 31 bytes",
                    good.replacingOccurrences(
                        of: p1.description, with: "ed25519:" + Base64.encode(Array(p1.raw.prefix(31))))
                ),
                ("another format", good.replacingOccurrences(of: "rollout-keys/1", with: "rollout-keys/2")),
                (
                    "a time that is not ISO 8601",
                    good.replacingOccurrences(of: "2026-10-02T00:00:00Z", with: "yesterday")
                ),
                ("version 0", good.replacingOccurrences(of: "\"version\":1", with: "\"version\":0")),
                (
                    "a threshold as a string",
                    good.replacingOccurrences(of: "\"threshold\":1", with: "\"threshold\":\"1\"")
                ),
                ("no revoked member", good.replacingOccurrences(of: "\"revoked\":{},", with: "")),
                (
                    "a duplicate member",
                    good.replacingOccurrences(of: "\"version\":1", with: "\"version\":1,\"version\":2")
                ),
            ]
            for (name, text) in edits {
                XCTAssertNotEqual(text, good, name)
                XCTAssertThrowsError(try KeyList.parse(Array(text.utf8), source: "keys.json"), name)
            }
            var revokedNotAnID = good.replacingOccurrences(
                of: "\"revoked\":{}", with: "\"revoked\":{\"ABC\":{\"reason\":\"x\",\"time\":\"2026-10-01T00:00:00Z\"}}"
            )
            XCTAssertThrowsError(try KeyList.parse(Array(revokedNotAnID.utf8), source: "keys.json")) { error in
                XCTAssertTrue("\(error)".contains("\"ABC\", which is not a key id"), "\(error)")
            }
            revokedNotAnID = good.replacingOccurrences(
                of: "\"revoked\":{}",
                with:
                    "\"revoked\":{\"\(publish2.publicKey.keyID)\":{\"reason\":\"x\",\"time\":\"2026-10-01T00:00:00Z\"}}"
            )
            XCTAssertNoThrow(
                try KeyList.parse(Array(revokedNotAnID.utf8), source: "keys.json"), "a revoked id needs no public key")
        }

        func testADeviceReadsAtMost16RootsAnd256KeysAndWalksAtMost64RootChanges() {
            let seventeen = (1...17).map { Self.key("many \($0)") }
            XCTAssertThrowsError(try KeyList.parse(list(1, roots: seventeen).bytes, source: "keys.json")) { error in
                XCTAssertTrue("\(error)".contains("more keys than a device reads"), "\(error)")
            }
            XCTAssertNoThrow(try KeyList.parse(list(1, roots: Array(seventeen.prefix(16))).bytes, source: "keys.json"))
            // An unsigned list's root changes are fetched before it is trusted: their number is bounded.
            XCTAssertNoThrow(
                try KeyList.parse(list(64, roots: [root1], rootChanges: Array(1...64)).bytes, source: "keys.json"))
            let endless = list(66, roots: [root1], rootChanges: Array(1...65))
            XCTAssertThrowsError(try KeyList.parse(endless.bytes, source: "keys.json")) { error in
                XCTAssertTrue("\(error)".contains("lists 65 root changes; a device walks at most 64"), "\(error)")
            }
            XCTAssertEqual(KeyChain.rotationsNeeded(file(endless, [stranger]), anchor: anchor([root1])), [])
        }

        // MARK: - SignatureSet

        func testASignatureSetReadsAtMost16SignaturesAndOnlyWellFormedOnes() throws {
            let message = Array("index".utf8)
            let one = SignatureSet.Entry(keyID: publish1.publicKey.keyID, signature: publish1.sign(message))
            XCTAssertEqual(
                try SignatureSet.parse(SignatureSet(Array(repeating: one, count: 16)).bytes, source: "x.sigs").entries
                    .count, 16)
            XCTAssertThrowsError(
                try SignatureSet.parse(SignatureSet(Array(repeating: one, count: 17)).bytes, source: "x.sigs")
            ) { error in
                XCTAssertTrue("\(error)".contains("holds 17 signatures; at most 16 are read"), "\(error)")
            }
            let sig = Base64.encode(one.signature)
            let bad: [(String, String)] = [
                ("another format", #"{"format":"rollout-signatures/2","signatures":[]}"#),
                ("no signatures member", #"{"format":"rollout-signatures/1"}"#),
                (
                    "an uppercase key id",
                    #"{"format":"rollout-signatures/1","signatures":[{"keyid":"\#(one.keyID.uppercased())","sig":"\#(sig)"}]}"#
                ),
                (
                    "a short key id",
                    #"{"format":"rollout-signatures/1","signatures":[{"keyid":"\#(one.keyID.prefix(8))","sig":"\#(sig)"}]}"#
                ),
                (
                    "a 63-byte signature",
                    #"{"format":"rollout-signatures/1","signatures":[{"keyid":"\#(one.keyID)","sig":"\#(Base64.encode(Array(one.signature.prefix(63))))"}]}"#
                ),
                (
                    "not base64",
                    #"{"format":"rollout-signatures/1","signatures":[{"keyid":"\#(one.keyID)","sig":"!!"}]}"#
                ),
                ("no sig", #"{"format":"rollout-signatures/1","signatures":[{"keyid":"\#(one.keyID)"}]}"#),
                ("not JSON", #"{"format":"rollout-signatures/1","#),
            ]
            for (name, text) in bad {
                XCTAssertThrowsError(try SignatureSet.parse(Array(text.utf8), source: "x.sigs"), name)
            }
            XCTAssertEqual(try SignatureSet.parse(SignatureSet([one]).bytes, source: "x.sigs"), SignatureSet([one]))
        }

        func testSignersAreTheListedKeysWhoseSignatureVerifiesEachCountedOnce() {
            let message = Array("keys".utf8)
            let set = SignatureSet([
                .init(keyID: root1.publicKey.keyID, signature: root1.sign(message)),
                .init(keyID: root1.publicKey.keyID, signature: root1.sign(message)),
                .init(keyID: root2.publicKey.keyID, signature: root1.sign(message)),
                .init(keyID: stranger.publicKey.keyID, signature: stranger.sign(message)),
                .init(keyID: root3.publicKey.keyID, signature: root3.sign(Array("other".utf8))),
            ])
            let roots = KeyList.Roots(keys: [root1, root2, root3].map(\.publicKey), threshold: 2).keys
            XCTAssertEqual(set.signers(of: message, among: roots), [root1.publicKey.keyID])
        }

        // MARK: - KeyChain.accept

        func testAFreshInstallAcceptsAListItsBuiltInRootsSigned() throws {
            let v1 = list(1, roots: [root1])
            XCTAssertEqual(KeyChain.rotationsNeeded(file(v1, [root1]), anchor: anchor([root1])), [])
            XCTAssertEqual(try accepted(file(v1, [root1]), anchor: anchor([root1])), v1)
        }

        func testTheHeldListServedAgainIsAcceptedAndANewerOneReplacesIt() throws {
            let v1 = list(1, roots: [root1])
            let v2 = list(2, roots: [root1], publishing: [(publish2, nextYear)])
            XCTAssertEqual(try accepted(file(v1, [root1]), anchor: anchor([root1], holding: v1)), v1)
            XCTAssertEqual(try accepted(file(v2, [root1]), anchor: anchor([root1], holding: v1)), v2)
        }

        func testAHeldListsRootsReplaceTheBuiltInOnes() throws {
            // A device that walked to root 4 trusts root 4, not the root 1 its app was built with.
            let rotated = list(2, roots: [root4], rootChanges: [1, 2])
            let byOldRoot = list(3, roots: [root1], rootChanges: [1, 2])
            XCTAssertEqual(anchor([root1], holding: rotated).roots, rotated.roots)
            XCTAssertEqual(
                refusal {
                    try KeyChain.accept(
                        self.file(byOldRoot, [self.root1]), rotations: [:],
                        anchor: self.anchor([self.root1], holding: rotated))
                }?.code,
                "not-signed-by-trusted-roots")
        }

        func testAnOlderListIsAReplayAndAnotherListOfTheHeldVersionAConflict() {
            let v1 = list(1, roots: [root1])
            let v2 = list(2, roots: [root1], publishing: [(publish2, nextYear)], revoked: [publish1])
            let otherV2 = list(2, roots: [root1], publishing: [(publish1, nextYear), (publish2, nextYear)])
            let replay = refusal {
                try KeyChain.accept(
                    self.file(v1, [self.root1]), rotations: [:], anchor: self.anchor([self.root1], holding: v2))
            }
            XCTAssertEqual(replay, .keysReplayed(file: "keys.json", version: 1, held: 2))
            XCTAssertEqual(replay?.code, "keys-replayed")
            let conflict = refusal {
                try KeyChain.accept(
                    self.file(otherV2, [self.root1]), rotations: [:], anchor: self.anchor([self.root1], holding: v2))
            }
            XCTAssertEqual(conflict, .keysConflict(file: "keys.json", version: 2))
        }

        func testAReplayIsRefusedBeforeItsSignaturesAreRead() {
            let v2 = list(2, roots: [root1])
            let unsigned = SignedFile(path: "keys.json", bytes: list(1, roots: [root1]).bytes, signatures: [])
            XCTAssertEqual(
                refusal {
                    try KeyChain.accept(unsigned, rotations: [:], anchor: self.anchor([self.root1], holding: v2))
                }?.code, "keys-replayed")
        }

        func testARevocationIsForGood() {
            let v2 = list(2, roots: [root1], publishing: [(publish2, nextYear)], revoked: [publish1])
            let v3 = list(3, roots: [root1], publishing: [(publish2, nextYear)])
            XCTAssertEqual(
                refusal {
                    try KeyChain.accept(
                        self.file(v3, [self.root1]), rotations: [:], anchor: self.anchor([self.root1], holding: v2))
                },
                .revocationDropped(file: "keys.json", keyID: publish1.publicKey.keyID))
        }

        func testARevocationDroppedAcrossARootChangeIsRefused() {
            let v1 = list(1, roots: [root1], publishing: [(publish2, nextYear)], revoked: [publish1])
            let v2 = list(2, roots: [root4], publishing: [(publish2, nextYear)], rootChanges: [1, 2])
            let v3 = list(
                3, roots: [root4], publishing: [(publish2, nextYear)], revoked: [publish1], rootChanges: [1, 2])
            let failure = refusal {
                try KeyChain.accept(
                    self.file(v3, [self.root4]),
                    rotations: [2: self.file(v2, [self.root1, self.root4], path: "keys/2.json")],
                    anchor: self.anchor([self.root1], holding: v1))
            }
            XCTAssertEqual(
                failure, .revocationDropped(file: "keys/2.json", keyID: publish1.publicKey.keyID),
                "the root change itself dropped it")
        }

        func testAListSignedByAPublishingKeyIsTheWrongRole() {
            let v1 = list(1, roots: [root1])
            let failure = refusal {
                try KeyChain.accept(self.file(v1, [self.publish1]), rotations: [:], anchor: self.anchor([self.root1]))
            }
            XCTAssertEqual(failure, .wrongRole(file: "keys.json", keyID: publish1.publicKey.keyID, role: "publishing"))
            XCTAssertTrue(
                failure?.description.contains("a publishing key, which may not sign this file") == true, "\(failure!)")
        }

        func testAListSignedByRootsThisAppDoesNotTrustIsRefused() {
            let theirs = list(1, roots: [stranger])
            let failure = refusal {
                try KeyChain.accept(
                    self.file(theirs, [self.stranger]), rotations: [:], anchor: self.anchor([self.root1]))
            }
            XCTAssertEqual(
                failure, .rootsDidNotSign(file: "keys.json", signed: [], threshold: 1, roots: [root1.publicKey.keyID]))
            XCTAssertEqual(failure?.code, "not-signed-by-trusted-roots")
            XCTAssertTrue(failure?.description.contains("not a key list from this app's owners") == true)
        }

        func testThresholdTwoOfThree() throws {
            let three = [root1, root2, root3]
            let v1 = list(1, roots: three, threshold: 2)
            let device = anchor(three, threshold: 2)
            for pair in [[root1, root2], [root1, root3], [root3, root2], three] {
                XCTAssertEqual(try KeyChain.accept(file(v1, pair), rotations: [:], anchor: device), v1)
            }
            for single in three {
                XCTAssertEqual(
                    refusal { try KeyChain.accept(self.file(v1, [single]), rotations: [:], anchor: device) }?.code,
                    "not-signed-by-trusted-roots")
            }
            XCTAssertEqual(
                refusal {
                    try KeyChain.accept(self.file(v1, [self.root1, self.root1]), rotations: [:], anchor: device)
                },
                .rootsDidNotSign(
                    file: "keys.json", signed: [root1.publicKey.keyID], threshold: 2,
                    roots: three.map(\.publicKey.keyID).sorted()),
                "one root's signature twice counts once")
            XCTAssertEqual(
                refusal {
                    try KeyChain.accept(self.file(v1, [self.root1, self.stranger]), rotations: [:], anchor: device)
                }?.code,
                "not-signed-by-trusted-roots")
        }

        func testAListMustAlsoBeSignedByTheThresholdOfItsOwnRoots() {
            let three = [root1, root2, root3]
            let raised = list(2, roots: three, threshold: 2)
            let failure = refusal {
                try KeyChain.accept(self.file(raised, [self.root1]), rotations: [:], anchor: self.anchor(three))
            }
            XCTAssertEqual(
                failure, .ownRootsDidNotSign(file: "keys.json", signed: [root1.publicKey.keyID], threshold: 2))
            // A new root added without its own signature: the old roots alone do not vouch for it.
            let added = list(2, roots: [root1, root4], threshold: 2, rootChanges: [1, 2])
            XCTAssertEqual(
                refusal {
                    try KeyChain.accept(
                        self.file(added, [self.root1]), rotations: [:], anchor: self.anchor([self.root1]))
                }?.code, "not-signed-by-own-roots")
            XCTAssertNoThrow(try KeyChain.accept(file(added, [root1, root4]), rotations: [:], anchor: anchor([root1])))
        }

        func testARootChangeIsWalkedFromTheBuiltInRoots() throws {
            let v1 = list(1, roots: [root1])
            let v2 = list(2, roots: [root4], rootChanges: [1, 2])
            let v3 = list(3, roots: [root4], publishing: [(publish2, nextYear)], rootChanges: [1, 2])
            let latest = file(v3, [root4])
            XCTAssertEqual(KeyChain.rotationsNeeded(latest, anchor: anchor([root1])), [1, 2])
            XCTAssertEqual(KeyChain.rotationsNeeded(latest, anchor: anchor([root1], holding: v1)), [2])
            let rotations = [file(v1, [root1], path: "keys/1.json"), file(v2, [root1, root4], path: "keys/2.json")]
            XCTAssertEqual(try accepted(latest, rotations: rotations, anchor: anchor([root1])), v3)
            XCTAssertEqual(try accepted(latest, rotations: [rotations[1]], anchor: anchor([root1], holding: v1)), v3)
            // Without the root change a device cannot get there.
            XCTAssertEqual(
                refusal { try KeyChain.accept(latest, rotations: [:], anchor: self.anchor([self.root1])) }?.code,
                "not-signed-by-trusted-roots")
        }

        func testTheLatestListMayItselfBeARootChange() throws {
            let v2 = list(2, roots: [root4], rootChanges: [1, 2])
            let latest = file(v2, [root1, root4])
            XCTAssertEqual(KeyChain.rotationsNeeded(latest, anchor: anchor([root1])), [])
            XCTAssertEqual(try KeyChain.accept(latest, rotations: [:], anchor: anchor([root1])), v2)
        }

        func testAnAppBuiltAfterARootChangeSkipsTheListsItCannotCheck() throws {
            let v1 = list(1, roots: [root1])
            let v2 = list(2, roots: [root4], rootChanges: [1, 2])
            let v4 = list(4, roots: [root5], rootChanges: [1, 2, 4])
            let v5 = list(5, roots: [root5], rootChanges: [1, 2, 4])
            let rotations = [
                file(v1, [root1], path: "keys/1.json"), file(v2, [root1, root4], path: "keys/2.json"),
                file(v4, [root4, root5], path: "keys/4.json"),
            ]
            XCTAssertEqual(KeyChain.rotationsNeeded(file(v5, [root5]), anchor: anchor([root4])), [1, 2, 4])
            XCTAssertEqual(try accepted(file(v5, [root5]), rotations: rotations, anchor: anchor([root4])), v5)
            XCTAssertEqual(
                try KeyChain.accept(
                    file(v5, [root5]), rotations: [2: rotations[1], 4: rotations[2]], anchor: anchor([root4])), v5)
        }

        func testARootChangeNotSignedByBothTheOldAndTheNewRootsIsNotWalked() {
            let v1 = list(1, roots: [root1])
            let v3 = list(3, roots: [root4], rootChanges: [1, 2])
            let v2 = list(2, roots: [root4], rootChanges: [1, 2])
            for (name, signers) in [
                ("only the new root", [root4]), ("only the old root", [root1]), ("a stranger", [stranger]),
            ] {
                let failure = refusal {
                    try KeyChain.accept(
                        self.file(v3, [self.root4]), rotations: [2: self.file(v2, signers, path: "keys/2.json")],
                        anchor: self.anchor([self.root1], holding: v1))
                }
                XCTAssertEqual(failure?.code, "not-signed-by-trusted-roots", name)
            }
            // A step whose document says another version than its path is not walked either.
            let misplaced = file(list(3, roots: [root4], rootChanges: [1, 2]), [root1, root4], path: "keys/2.json")
            XCTAssertEqual(
                refusal {
                    try KeyChain.accept(
                        self.file(v3, [self.root4]), rotations: [2: misplaced],
                        anchor: self.anchor([self.root1], holding: v1))
                }?.code,
                "not-signed-by-trusted-roots")
        }

        func testDamagedKeyListsAndSignaturesNameTheFile() {
            let v1 = list(1, roots: [root1])
            let cutSigs = SignedFile(
                path: "keys.json", bytes: v1.bytes, signatures: Array(sigs(v1.bytes, [root1]).dropLast()))
            XCTAssertEqual(KeyChain.rotationsNeeded(cutSigs, anchor: anchor([root1])), [])
            let failure = refusal { try KeyChain.accept(cutSigs, rotations: [:], anchor: self.anchor([self.root1])) }
            guard case .damaged(let path, _) = failure else { return XCTFail("\(String(describing: failure))") }
            XCTAssertEqual(path, "keys.json.sigs")
            XCTAssertFalse(failure!.description.contains("keys.json.sigs: keys.json.sigs"), failure!.description)
            let notAList = SignedFile(
                path: "keys.json", bytes: Array("{}".utf8), signatures: sigs(Array("{}".utf8), [root1]))
            guard
                case .damaged(let listPath, _) = refusal({
                    try KeyChain.accept(notAList, rotations: [:], anchor: self.anchor([self.root1]))
                })
            else {
                return XCTFail("a list that does not parse")
            }
            XCTAssertEqual(listPath, "keys.json")
        }

        // MARK: - The app's minimum key list version

        func testAFreshInstallRefusesAKeyListFromBeforeTheMinimumBuiltIntoTheApp() throws {
            // The app was built when list 2, which revokes publishing key 1, was current: list 1 is what
            // whoever holds publishing key 1 would show it.
            let v1 = list(1, roots: [root1])
            let v2 = list(2, roots: [root1], publishing: [(publish2, nextYear)], revoked: [publish1])
            let v3 = list(3, roots: [root1], publishing: [(publish2, nextYear)], revoked: [publish1])
            let failure = refusal {
                try KeyChain.accept(
                    self.file(v1, [self.root1]), rotations: [:], anchor: self.anchor([self.root1], minimum: 2))
            }
            XCTAssertEqual(failure, .keysBelowMinimum(file: "keys.json", version: 1, minimum: 2))
            XCTAssertEqual(failure?.code, "below-minimum-keys-version")
            XCTAssertTrue(
                failure!.description.hasPrefix(
                    "keys.json: version 1 is older than version 2, the minimum built into this app"),
                failure!.description)
            XCTAssertEqual(
                try accepted(file(v2, [root1]), anchor: anchor([root1], minimum: 2)), v2, "the minimum itself")
            XCTAssertEqual(try accepted(file(v3, [root1]), anchor: anchor([root1], minimum: 2)), v3)
            XCTAssertEqual(try accepted(file(v1, [root1]), anchor: anchor([root1])), v1, "no minimum: any version")
        }

        func testAHeldListNewerThanTheMinimumIsUnaffected() throws {
            let v3 = list(3, roots: [root1])
            let v4 = list(4, roots: [root1], publishing: [(publish2, nextYear)])
            let device = anchor([root1], holding: v3, minimum: 2)
            XCTAssertEqual(try accepted(file(v3, [root1]), anchor: device), v3, "the held list served again")
            XCTAssertEqual(try accepted(file(v4, [root1]), anchor: device), v4)
            XCTAssertEqual(
                refusal {
                    try KeyChain.accept(
                        self.file(self.list(1, roots: [self.root1]), [self.root1]), rotations: [:], anchor: device)
                }?.code,
                "keys-replayed", "a list older than the held one is named a replay first")
        }

        func testAnUpdateThatRaisesTheMinimumRefusesTheOlderListTheDeviceHeld() {
            let v1 = list(1, roots: [root1])
            XCTAssertEqual(
                refusal {
                    try KeyChain.accept(
                        self.file(v1, [self.root1]), rotations: [:],
                        anchor: self.anchor([self.root1], holding: v1, minimum: 2))
                },
                .keysBelowMinimum(file: "keys.json", version: 1, minimum: 2))
        }

        // MARK: - The built-in roots at acceptance (anchoredTo)

        func testTheHeldListsRootsCountWhileTheAppKeepsTheRootsThatAcceptedIt() throws {
            let rotated = list(2, roots: [root4], rootChanges: [1, 2])
            let v3 = list(3, roots: [root4], publishing: [(publish2, nextYear)], rootChanges: [1, 2])
            for (name, anchoredTo) in [("not recorded", nil), ("the same roots", [root1])]
                as [(String, [Ed25519.PrivateKey]?)]
            {
                let device = anchor([root1], holding: rotated, anchoredTo: anchoredTo)
                XCTAssertEqual(device.roots, rotated.roots, name)
                XCTAssertEqual(KeyChain.rotationsNeeded(file(v3, [root4]), anchor: device), [], name)
                XCTAssertEqual(try KeyChain.accept(file(v3, [root4]), rotations: [:], anchor: device), v3, name)
                XCTAssertEqual(
                    refusal {
                        try KeyChain.accept(
                            self.file(self.list(3, roots: [self.root1], rootChanges: [1, 2, 3]), [self.root1]),
                            rotations: [:], anchor: device)
                    }?
                    .code, "not-signed-by-trusted-roots", "\(name): the root the device walked away from")
            }
            XCTAssertEqual(
                anchor([root1], anchoredTo: [root4]).roots, roots([root1]),
                "no held list: the built-in roots, whatever is recorded")
        }

        func testNewRootsShippedInAnAppUpdateAfterARootLeakReplaceTheLeakedOnesTheDeviceLearnt() throws {
            // The device walked from root 1 to root 4; root 4 leaked; the team moved to root 5 (list 3)
            // and shipped an app with root 5 built in.
            let held = list(2, roots: [root4], rootChanges: [1, 2])
            let device = anchor([root5], holding: held, anchoredTo: [root1])
            XCTAssertEqual(device.roots, roots([root5]))
            let leaked = list(3, roots: [root4], publishing: [(stranger, nextYear)], rootChanges: [1, 2])
            XCTAssertEqual(
                refusal { try KeyChain.accept(self.file(leaked, [self.root4]), rotations: [:], anchor: device) },
                .rootsDidNotSign(file: "keys.json", signed: [], threshold: 1, roots: [root5.publicKey.keyID]),
                "signed by the old held roots alone")
            let team = list(3, roots: [root5], publishing: [(publish2, nextYear)], rootChanges: [1, 2, 3])
            XCTAssertEqual(try accepted(file(team, [root5]), anchor: device), team)
            XCTAssertEqual(
                refusal {
                    try KeyChain.accept(self.file(held, [self.root1, self.root4]), rotations: [:], anchor: device)
                }?.code,
                "not-signed-by-trusted-roots", "the held list itself, served again, is checked against the new roots")
            XCTAssertEqual(
                refusal {
                    try KeyChain.accept(
                        self.file(self.list(1, roots: [self.root5]), [self.root5]), rotations: [:], anchor: device)
                }?.code, "keys-replayed")
        }

        func testAnUpdateToAnAppBuiltBeforeALaterRootChangeWalksFromItsOwnRoots() throws {
            // App 1.0 (root 1) walked to root 5 (list 5); the update, app 1.1, was built with root 4,
            // between the two root changes.
            let v1 = list(1, roots: [root1])
            let v2 = list(2, roots: [root4], rootChanges: [1, 2])
            let v4 = list(4, roots: [root5], rootChanges: [1, 2, 4])
            let v5 = list(5, roots: [root5], rootChanges: [1, 2, 4])
            let v6 = list(6, roots: [root5], publishing: [(publish2, nextYear)], rootChanges: [1, 2, 4])
            let rotations = [
                1: file(v1, [root1], path: "keys/1.json"), 2: file(v2, [root1, root4], path: "keys/2.json"),
                4: file(v4, [root4, root5], path: "keys/4.json"),
            ]
            let device = anchor([root4], holding: v5, anchoredTo: [root1])
            XCTAssertEqual(KeyChain.rotationsNeeded(file(v6, [root5]), anchor: device), [1, 2, 4])
            let walk = try KeyChain.acceptWalking(file(v6, [root5]), rotations: rotations, anchor: device)
            XCTAssertEqual(walk.list, v6)
            XCTAssertEqual(walk.walked, [2, 4], "keys/1.json, which root 4 cannot check, is skipped")
            let again = try KeyChain.acceptWalking(file(v5, [root5]), rotations: rotations, anchor: device)
            XCTAssertEqual(again.list, v5, "the held list, reached from the built-in roots")
            XCTAssertEqual(again.walked, [2, 4])
        }

        // MARK: - Root changes recorded (root-change-unrecorded)

        func testRootsChangedWithoutRecordingTheChangeAreRefused() throws {
            let v1 = list(1, roots: [root1])
            let added = list(2, roots: [root1, root4], rootChanges: [1])
            let failure = refusal {
                try KeyChain.accept(
                    self.file(added, [self.root1, self.root4]), rotations: [:],
                    anchor: self.anchor([self.root1], holding: v1))
            }
            XCTAssertEqual(failure, .rootChangeUnrecorded(file: "keys.json", version: 2, since: 1))
            XCTAssertEqual(failure?.code, "root-change-unrecorded")
            XCTAssertTrue(
                failure!.description.hasPrefix("keys.json: version 2 changes the root keys of version 1"),
                failure!.description)
            let raised = list(2, roots: [root1, root4], threshold: 2, rootChanges: [1])
            XCTAssertEqual(
                refusal {
                    try KeyChain.accept(
                        self.file(raised, [self.root1, self.root4]), rotations: [:],
                        anchor: self.anchor(
                            [self.root1, self.root4], holding: self.list(1, roots: [self.root1, self.root4])))
                }?.code,
                "root-change-unrecorded", "a threshold changed alone is a root change")
            XCTAssertEqual(
                try accepted(
                    file(list(2, roots: [root1, root4], rootChanges: [1, 2]), [root1, root4]),
                    anchor: anchor([root1], holding: v1)
                ).version, 2, "recorded")
            XCTAssertEqual(
                try accepted(file(added, [root1, root4]), anchor: anchor([root1])), added,
                "a fresh install has nothing to compare it with")
        }

        func testRootChangesRewrittenOrDroppedAreRefused() {
            let held = list(2, roots: [root4], rootChanges: [1, 2])
            for (name, changes) in [("rewritten", [1, 3]), ("dropped", [1])] {
                let later = list(3, roots: [root4], rootChanges: changes)
                XCTAssertEqual(
                    refusal {
                        try KeyChain.accept(
                            self.file(later, [self.root4]), rotations: [:],
                            anchor: self.anchor([self.root1], holding: held))
                    },
                    .rootChangeUnrecorded(file: "keys.json", version: 3, since: 2), name)
            }
        }

        func testAWalkedRootChangeMustRecordItselfAndKeepTheChangesBeforeIt() {
            let v1 = list(1, roots: [root1])
            let v3 = list(3, roots: [root4], rootChanges: [1, 2])
            // keys/2.json whose rootChanges does not end with 2: not a root change, skipped.
            let unrecorded = file(list(2, roots: [root4], rootChanges: [1]), [root1, root4], path: "keys/2.json")
            XCTAssertEqual(KeyChain.rotationsNeeded(file(v3, [root4]), anchor: anchor([root1], holding: v1)), [2])
            XCTAssertEqual(
                refusal {
                    try KeyChain.accept(
                        self.file(v3, [self.root4]), rotations: [2: unrecorded],
                        anchor: self.anchor([self.root1], holding: v1))
                }?.code,
                "not-signed-by-trusted-roots")
            // A walked root change that rewrites the held list's changes is refused, naming it.
            let held = list(2, roots: [root4], rootChanges: [1, 2])
            let rewriting = file(list(4, roots: [root5], rootChanges: [1, 4]), [root4, root5], path: "keys/4.json")
            let v5 = list(5, roots: [root5], rootChanges: [1, 4])
            XCTAssertEqual(
                refusal {
                    try KeyChain.accept(
                        self.file(v5, [self.root5]), rotations: [4: rewriting],
                        anchor: self.anchor([self.root1], holding: held))
                },
                .rootChangeUnrecorded(file: "keys/4.json", version: 4, since: 2))
            // The latest list against the last root change walked.
            let v4 = file(list(4, roots: [root5], rootChanges: [1, 2, 4]), [root4, root5], path: "keys/4.json")
            let widened = list(5, roots: [root5, root3], rootChanges: [1, 2, 4])
            XCTAssertEqual(
                refusal {
                    try KeyChain.accept(
                        self.file(widened, [self.root5, self.root3]), rotations: [4: v4],
                        anchor: self.anchor([self.root1], holding: held))
                },
                .rootChangeUnrecorded(file: "keys.json", version: 5, since: 4))
        }

        // MARK: - KeyChain.acceptWalking

        func testAcceptReportsTheRootChangesItWalked() throws {
            let v1 = list(1, roots: [root1])
            let v2 = list(2, roots: [root4], rootChanges: [1, 2])
            let v3 = list(3, roots: [root4], rootChanges: [1, 2])
            let rotations = [
                1: file(v1, [root1], path: "keys/1.json"), 2: file(v2, [root1, root4], path: "keys/2.json"),
            ]
            XCTAssertEqual(
                try KeyChain.acceptWalking(file(v3, [root4]), rotations: rotations, anchor: anchor([root1])).walked,
                [1, 2])
            XCTAssertEqual(
                try KeyChain.acceptWalking(
                    file(v3, [root4]), rotations: rotations, anchor: anchor([root1], holding: v1)
                ).walked, [2])
            XCTAssertEqual(
                try KeyChain.acceptWalking(file(v3, [root4]), rotations: rotations, anchor: anchor([root4])).walked, [],
                "signed by the roots it trusts")
            XCTAssertEqual(
                try KeyChain.acceptWalking(file(v3, [root4]), rotations: [:], anchor: anchor([root1], holding: v3))
                    .walked, [], "the held list")
            let v2Again = try KeyChain.acceptWalking(
                file(v2, [root1, root4]), rotations: rotations, anchor: anchor([root1], holding: v1))
            XCTAssertEqual(v2Again.list, v2)
            XCTAssertEqual(v2Again.walked, [], "the latest list is itself the root change")
        }

        // MARK: - KeyChain.signingRefusal and legacySigner

        func testEachReasonAKeyMayNotSignAnIndexOrAManifest() {
            let v = list(2, roots: [root1], publishing: [(publish2, now)], revoked: [publish1])
            let cases: [(String, Ed25519.PrivateKey, Timestamp?, TrustFailure?)] = [
                (
                    "revoked", publish1, now,
                    .revokedKey(file: "index.json", keyID: publish1.publicKey.keyID, reason: "lost")
                ),
                ("a root key", root1, now, .wrongRole(file: "index.json", keyID: root1.publicKey.keyID, role: "root")),
                ("not listed", stranger, now, .unknownKey(file: "index.json", keyIDs: [stranger.publicKey.keyID])),
                (
                    "expired (expires == now)", publish2, now,
                    .expiredKey(file: "index.json", keyID: publish2.publicKey.keyID, expires: now)
                ),
                ("a second before its expiry", publish2, Timestamp(seconds: now.seconds - 1), nil),
                ("no clock: a cached file", publish2, nil, nil),
                (
                    "revoked, with no clock", publish1, nil,
                    .revokedKey(file: "index.json", keyID: publish1.publicKey.keyID, reason: "lost")
                ),
            ]
            for (name, key, at, expected) in cases {
                XCTAssertEqual(
                    KeyChain.signingRefusal(key.publicKey.keyID, list: v, now: at, file: "index.json"), expected, name)
            }
        }

        func testALegacySignatureIsCheckedAgainstTheListsUnrevokedPublishingKeys() {
            let bytes = Array("manifest".utf8)
            func sig(_ key: Ed25519.PrivateKey) -> [UInt8] { DetachedSignature.encode(key.sign(bytes)) }
            let expired = Timestamp(seconds: now.seconds - 1)
            let v = list(2, roots: [root1], publishing: [(publish2, expired)], revoked: [publish1])
            XCTAssertEqual(
                KeyChain.legacySigner(of: bytes, signature: sig(publish2), list: v), publish2.publicKey.keyID,
                "listed, expired or not")
            XCTAssertNil(KeyChain.legacySigner(of: bytes, signature: sig(publish1), list: v), "revoked")
            XCTAssertNil(KeyChain.legacySigner(of: bytes, signature: sig(stranger), list: v), "not listed")
            XCTAssertNil(KeyChain.legacySigner(of: bytes, signature: sig(root1), list: v), "a root key")
            XCTAssertNil(
                KeyChain.legacySigner(of: Array("manifest!".utf8), signature: sig(publish2), list: v), "other bytes")
            XCTAssertNil(
                KeyChain.legacySigner(of: bytes, signature: Array(sig(publish2).dropLast(2)), list: v), "a damaged .sig"
            )
        }

        // MARK: - KeyChain.publisher

        private func index(_ keys: [Ed25519.PrivateKey], bytes: [UInt8] = Array("index".utf8)) -> SignedFile {
            SignedFile(path: "index.json", bytes: bytes, signatures: sigs(bytes, keys))
        }

        func testAListedUnrevokedUnexpiredPublishingKeyVouches() throws {
            let v1 = list(1, roots: [root1], publishing: [(publish1, nextYear), (publish2, nextYear)])
            XCTAssertEqual(try KeyChain.publisher(of: index([publish2]), list: v1, now: now), publish2.publicKey.keyID)
            XCTAssertEqual(
                try KeyChain.publisher(of: index([stranger, publish1]), list: v1, now: now), publish1.publicKey.keyID)
        }

        func testEachReasonAPublishingKeyDoesNotVouch() {
            let expiring = Timestamp(seconds: now.seconds)
            let v = list(2, roots: [root1], publishing: [(publish2, expiring)], revoked: [publish1])
            let cases: [(String, SignedFile, TrustFailure)] = [
                (
                    "revoked", index([publish1]),
                    .revokedKey(file: "index.json", keyID: publish1.publicKey.keyID, reason: "lost")
                ),
                (
                    "expired (expires == now)", index([publish2]),
                    .expiredKey(file: "index.json", keyID: publish2.publicKey.keyID, expires: expiring)
                ),
                (
                    "a root key", index([root1]),
                    .wrongRole(file: "index.json", keyID: root1.publicKey.keyID, role: "root")
                ),
                (
                    "a key the list does not name", index([stranger]),
                    .unknownKey(file: "index.json", keyIDs: [stranger.publicKey.keyID])
                ),
                (
                    "no signature",
                    SignedFile(path: "index.json", bytes: Array("index".utf8), signatures: SignatureSet([]).bytes),
                    .unknownKey(file: "index.json", keyIDs: [])
                ),
            ]
            for (name, signed, expected) in cases {
                XCTAssertEqual(refusal { try KeyChain.publisher(of: signed, list: v, now: self.now) }, expected, name)
            }
            let changed = SignedFile(
                path: "index.json", bytes: Array("index!".utf8), signatures: sigs(Array("index".utf8), [publish2]))
            XCTAssertEqual(
                refusal { try KeyChain.publisher(of: changed, list: v, now: nil) },
                .unknownKey(file: "index.json", keyIDs: [publish2.publicKey.keyID]))
            let byRootOverOtherBytes = SignedFile(
                path: "index.json", bytes: Array("index!".utf8), signatures: sigs(Array("index".utf8), [root1]))
            XCTAssertEqual(
                refusal { try KeyChain.publisher(of: byRootOverOtherBytes, list: v, now: nil) }?.code, "unknown-key",
                "a root's signature that does not verify is no role")
            guard
                case .damaged(let path, _) = refusal({
                    try KeyChain.publisher(
                        of: SignedFile(path: "index.json", bytes: [], signatures: Array("[]".utf8)), list: v, now: nil)
                })
            else { return XCTFail("damaged .sigs") }
            XCTAssertEqual(path, "index.json.sigs")
        }

        func testAnExpiredKeyStillVouchesForWhatADeviceAlreadyHas() throws {
            let v = list(2, roots: [root1], publishing: [(publish2, Timestamp(seconds: now.seconds - 1))])
            XCTAssertEqual(try KeyChain.publisher(of: index([publish2]), list: v, now: nil), publish2.publicKey.keyID)
            XCTAssertEqual(
                refusal { try KeyChain.publisher(of: index([publish2]), list: v, now: self.now) }?.code, "expired-key")
        }

        func testTheMostTellingReasonIsGivenRevokedFirstThenTheFirstOfWrongRoleAndExpired() {
            let v = list(
                2, roots: [root1], publishing: [(publish2, Timestamp(seconds: now.seconds - 1))], revoked: [publish1])
            let order: [([Ed25519.PrivateKey], String)] = [
                ([root1, publish1], "revoked-key"), ([publish1, root1], "revoked-key"),
                ([publish2, publish1], "revoked-key"),
                ([root1, publish2], "wrong-role"), ([publish2, root1], "expired-key"),
                ([stranger, root1], "wrong-role"),
                ([root1, publish1, stranger], "revoked-key"),
            ]
            for (signers, code) in order {
                XCTAssertEqual(
                    refusal { try KeyChain.publisher(of: self.index(signers), list: v, now: self.now) }?.code, code,
                    signers.map(\.publicKey.keyID).joined(separator: ","))
            }
            let withGood = list(3, roots: [root1], publishing: [(publish2, nextYear)], revoked: [publish1])
            XCTAssertEqual(
                try KeyChain.publisher(of: index([publish1, root1, publish2]), list: withGood, now: now),
                publish2.publicKey.keyID, "one good signature is enough")
        }

        // MARK: - KeyChain.checkIndex

        private func siteIndex(_ sequence: Int, expires: Timestamp?) -> SiteIndex {
            SiteIndex(sequence: sequence, time: start, expires: expires, defaultLocale: "en-US", locales: [:])
        }

        func testAnIndexMustBeNewEnoughAndUnexpired() {
            let later = Timestamp(seconds: now.seconds + 1)
            func check(
                _ sequence: Int, _ expires: Timestamp?, accepted: Int = 0, minimum: Int = 0, require: Bool = true
            ) -> TrustFailure? {
                refusal {
                    try KeyChain.checkIndex(
                        self.siteIndex(sequence, expires: expires), now: self.now, accepted: accepted,
                        builtInMinimum: minimum, requireExpiry: require)
                }
            }
            XCTAssertNil(check(5, later))
            XCTAssertNil(check(5, later, accepted: 5, minimum: 5), "the same sequence again")
            XCTAssertEqual(check(4, later, accepted: 5), .sequenceTooOld(sequence: 4, minimum: 5, builtIn: false))
            XCTAssertEqual(check(4, later, accepted: 5).map(\.code), "index-replayed")
            XCTAssertEqual(check(4, later, minimum: 5), .sequenceTooOld(sequence: 4, minimum: 5, builtIn: true))
            XCTAssertEqual(check(4, later, minimum: 5).map(\.code), "below-minimum-sequence")
            XCTAssertEqual(
                check(3, later, accepted: 4, minimum: 5).map(\.code), "index-replayed", "the replay is named first")
            XCTAssertEqual(check(5, now), .indexExpired(expires: now, now: now), "expires exactly now")
            XCTAssertEqual(check(5, Timestamp(seconds: now.seconds - 86_400)).map(\.code), "index-expired")
            XCTAssertEqual(check(5, nil), .indexWithoutExpiry)
            XCTAssertNil(check(5, nil, require: false), "a pinned-key device accepts an index without expires")
            XCTAssertEqual(
                check(5, now, require: false).map(\.code), "index-expired", "and checks expires when there is one")
            XCTAssertEqual(check(4, now, accepted: 5).map(\.code), "index-replayed", "the sequence before the expiry")
        }

        func testEveryFailureHasAStableCodeAndASentenceNamingTheFile() {
            let failures: [TrustFailure] = [
                .damaged(file: "keys.json", why: "x"),
                .rootsDidNotSign(file: "keys.json", signed: [], threshold: 1, roots: ["a"]),
                .ownRootsDidNotSign(file: "keys.json", signed: [], threshold: 2),
                .keysReplayed(file: "keys.json", version: 1, held: 2),
                .keysBelowMinimum(file: "keys.json", version: 1, minimum: 2),
                .rootChangeUnrecorded(file: "keys.json", version: 2, since: 1),
                .keysConflict(file: "keys.json", version: 2), .revocationDropped(file: "keys.json", keyID: "k"),
                .revokedKey(file: "index.json", keyID: "k", reason: ""),
                .expiredKey(file: "index.json", keyID: "k", expires: now),
                .wrongRole(file: "index.json", keyID: "k", role: "root"), .unknownKey(file: "index.json", keyIDs: []),
                .indexExpired(expires: now, now: now), .indexWithoutExpiry,
                .sequenceTooOld(sequence: 1, minimum: 2, builtIn: false),
                .sequenceTooOld(sequence: 1, minimum: 2, builtIn: true),
            ]
            XCTAssertEqual(Set(failures.map(\.code)).count, failures.count, "one code per reason")
            for failure in failures {
                XCTAssertTrue(
                    failure.description.hasPrefix("keys.json: ") || failure.description.hasPrefix("index.json: "),
                    failure.description)
            }
        }
    }
#endif
