import RolloutCrypto
import XCTest

/// The publish cache is authenticated with HMAC-SHA256: it must be the RFC's, not one of our own.
final class HMACTests: XCTestCase {
    func testRFC4231Vectors() {
        // Test cases 1, 2 and 6 of RFC 4231 (a short key, a text key, a key longer than a block).
        XCTAssertEqual(
            HMACSHA256.hex(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        XCTAssertEqual(
            HMACSHA256.hex(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        XCTAssertEqual(
            HMACSHA256.hex(
                key: [UInt8](repeating: 0xaa, count: 131),
                message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}
