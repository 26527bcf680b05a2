import Foundation
import Testing
@testable import Vault

/// TOTP codes as RFC 6238 defines them (HMAC-SHA1, 30-second steps), accepted one step either side.
@Suite struct TOTPTests {
    /// RFC 6238 Appendix B's SHA-1 seed, "12345678901234567890" in ASCII.
    static let seed = Array("12345678901234567890".utf8)

    @Test(arguments: [
        (59.0, "94287082"), (1_111_111_109.0, "07081804"), (1_111_111_111.0, "14050471"), (1_234_567_890.0, "89005924"),
        (2_000_000_000.0, "69279037"), (20_000_000_000.0, "65353130"),
    ])
    func theCodesAreRFC6238AppendixBs(seconds: Double, code: String) {
        let step = TOTP.step(at: Date(timeIntervalSince1970: seconds))
        #expect(TOTP.code(secret: Self.seed, step: step, digits: 8) == code)
        // The 6-digit code authenticator apps show is the same number's last six digits.
        #expect(TOTP.code(secret: Self.seed, step: step) == String(code.suffix(6)))
    }

    @Test func aCodeMatchesInItsStepAndOneStepEitherSideOnly() {
        let at = Date(timeIntervalSince1970: 1_111_111_111)
        let step = TOTP.step(at: at)
        for offset: Int64 in [-1, 0, 1] {
            let code = TOTP.code(secret: Self.seed, step: step + offset)
            #expect(TOTP.matchingStep(code: code, secret: Self.seed, at: at) == step + offset)
        }
        for offset: Int64 in [-3, -2, 2, 3] {
            #expect(TOTP.matchingStep(code: TOTP.code(secret: Self.seed, step: step + offset), secret: Self.seed, at: at) == nil)
        }
    }

    @Test(arguments: ["", "12345", "1234567", "12345a", " 50471", "０５０４７１"])
    func aCodeThatIsNotSixDigitsMatchesNothing(code: String) {
        #expect(TOTP.matchingStep(code: code, secret: Self.seed, at: Date(timeIntervalSince1970: 1_111_111_111)) == nil)
    }

    @Test func theProvisioningURINamesTheIssuerAccountAndUpperCaseSecret() {
        let uri = TOTP.provisioningURI(secret: Self.seed, account: "ada.l", issuer: "Vault")
        #expect(uri == "otpauth://totp/Vault%3Aada.l?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Vault&algorithm=SHA1&digits=6&period=30")
    }
}
