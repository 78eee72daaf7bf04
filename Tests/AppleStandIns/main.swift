// The crypto vectors run through RolloutCrypto and RolloutModel as ApplePlatformTests builds them:
// against the CryptoKit stand-in, with no OpenSSL module in sight, so what runs is RolloutCrypto's
// `#if canImport(CryptoKit)` branch. Usage: runner FIXTURES_DIR. Prints what failed; exits 1 if any.

import Foundation
import RolloutCrypto
import RolloutModel

let fixtures = URL(fileURLWithPath: CommandLine.arguments[1])
var checked = 0
var failures: [String] = []

func expect(_ holds: Bool, _ what: @autoclosure () -> String) {
    checked += 1
    if !holds { failures.append(what()) }
}

func load<T>(_ name: String, as type: T.Type) -> T {
    let data = try! Data(contentsOf: fixtures.appendingPathComponent(name))
    return try! JSONSerialization.jsonObject(with: data) as! T
}

func bytes(hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
}

let vectors = load("crypto-vectors.json", as: [String: Any].self)

for vector in vectors["sha256"] as! [[String: Any]] {
    let name = vector["name"] as! String
    let digest = vector["digest"] as! String
    let text = Array((vector["text"] as! String).utf8)
    let input = (0..<text.count * (vector["repeat"] as! Int)).map { text[$0 % text.count] }
    expect(SHA256.hex(input) == digest, "SHA256.hex(\(name))")
    input.withUnsafeBytes { buffer in
        expect(Hex.encode(SHA256.digest(buffer: buffer)) == digest, "SHA256.digest(buffer:) of \(name)")
        expect(SHA256.leadingUInt64(buffer) == UInt64(digest.prefix(16), radix: 16), "SHA256.leadingUInt64 of \(name)")
    }
    let hasher = SHA256Hasher()
    for start in stride(from: 0, to: input.count, by: 4093) {
        input[start..<min(start + 4093, input.count)].withUnsafeBytes { hasher.update($0) }
    }
    expect(Hex.encode(hasher.finalize()) == digest, "SHA256Hasher in chunks of \(name)")
}

let keys = (vectors["ed25519"] as! [[String: String]]).map { Ed25519.PublicKey(raw: bytes(hex: $0["publicKey"]!))! }
for (index, vector) in (vectors["ed25519"] as! [[String: String]]).enumerated() {
    let name = vector["name"]!
    let key = keys[index]
    let message = bytes(hex: vector["message"]!)
    let signature = bytes(hex: vector["signature"]!)
    expect(key.verify(signature, for: message), "\(name): the RFC's signature verifies")
    expect(
        DetachedSignature.verify(DetachedSignature.encode(signature), over: message, with: key),
        "\(name): as a .sig file")
    for bit in [0, 255, 256, 511] {
        var changed = signature
        changed[bit / 8] ^= 1 << UInt8(bit % 8)
        expect(!key.verify(changed, for: message), "\(name): signature bit \(bit) flipped is refused")
    }
    expect(!key.verify(signature, for: message + [0]), "\(name): a longer message is refused")
    expect(!key.verify(Array(signature.dropLast()), for: message), "\(name): a 63-byte signature is refused")
    expect(!key.verify(signature + [0], for: message), "\(name): a 65-byte signature is refused")
    expect(!keys[(index + 1) % keys.count].verify(signature, for: message), "\(name): another key refuses it")
}

for vector in load("checksum-vectors.json", as: [[String: String]].self) {
    let name = vector["name"]!
    let pack = try! PackParser.parse(Array(vector["input"]!.utf8), source: name, verifyChecksum: false).pack
    expect(pack.checksum == vector["checksum"], "pack checksum of \(name)")
}

for vector in load("bucket-vectors.json", as: [[String: Any]].self) {
    let id = vector["installId"] as! String
    let salt = vector["salt"] as! String
    expect(Bucketing.bucket(installID: id, salt: salt) == vector["bucket"] as? Int, "bucket of \(id) / \(salt)")
}

// RFC 4231 test cases 1 and 2: HMAC is RolloutCrypto's own code over SHA256.digest.
expect(
    HMACSHA256.hex(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8))
        == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", "HMAC-SHA256, RFC 4231 case 1")
expect(
    HMACSHA256.hex(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", "HMAC-SHA256, RFC 4231 case 2")

for failure in failures { print("FAILED: \(failure)") }
print("\(checked) checks, \(failures.count) failed")
exit(failures.isEmpty ? 0 : 1)
