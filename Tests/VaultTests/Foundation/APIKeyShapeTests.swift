import Foundation
import Testing
@testable import Vault

/// Which bearer strings name a key id: `vk_<16>_<32>`, nothing else.
@Suite struct APIKeyShapeTests {
    static let id = "ABCDEFGHIJKLMNOP"
    static let secret = String(repeating: "s", count: 32)

    @Test func anIssuedKeyNamesItsOwnID() {
        let issued = APIKeys.newKey(merchantID: "m_1", role: .admin, now: Date())
        #expect(APIKeys.keyID(ofBearer: issued.bearer) == issued.record.id)
    }

    @Test func aWellShapedBearerNamesItsID() {
        #expect(APIKeys.keyID(ofBearer: "vk_\(Self.id)_\(Self.secret)") == "key_\(Self.id)")
    }

    @Test(arguments: [
        "", "vk", "vk__", "vk_\(id)_\(secret)x", "vk_\(id)\(secret)_", "xk_\(id)_\(secret)", "VK_\(id)_\(secret)", "vk_\(id.dropLast())__\(secret)",
        "vk_\(id)_\(secret.dropLast())_", "vk-\(id)_\(secret)", "vk_\(id)-\(secret)", "vk_\(id)_\(secret.dropLast())é",
    ])
    func otherShapesNameNoID(bearer: String) {
        #expect(APIKeys.keyID(ofBearer: bearer) == nil)
    }
}
