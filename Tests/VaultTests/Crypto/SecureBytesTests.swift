import Foundation
import Testing
@testable import Vault

@Suite struct SecureBytesTests {
    @Test(arguments: [0, 1, 32, 5000])
    func newBytesAreZero(count: Int) throws {
        let bytes = try SecureBytes(count: count)
        #expect(bytes.count == count)
        #expect(bytes.copyToArray() == [UInt8](repeating: 0, count: count))
    }

    @Test func copyingKeepsTheBytes() throws {
        let source: [UInt8] = [9, 8, 7, 6, 5]
        #expect(try SecureBytes(copying: source).copyToArray() == source)
        #expect(try SecureBytes(copying: source[1...3]).copyToArray() == [8, 7, 6])
        #expect(try SecureBytes(copying: "abc".utf8).copyToArray() == [97, 98, 99])
        #expect(try SecureBytes(copying: Set<UInt8>([4])).copyToArray() == [4])
    }

    @Test func initializerFillsTheBytes() throws {
        let bytes = try SecureBytes(count: 4) { buffer in
            for index in buffer.indices { buffer[index] = UInt8(index * 2) }
        }
        #expect(bytes.copyToArray() == [0, 2, 4, 6])
    }

    @Test func aThrowingInitializerPropagatesItsError() {
        #expect(throws: CryptoError.sealFailed) {
            try SecureBytes(count: 8) { _ in throw CryptoError.sealFailed }
        }
    }

    @Test func randomBytesDifferBetweenCalls() throws {
        let first = try SecureBytes.random(count: 32)
        let second = try SecureBytes.random(count: 32)
        #expect(first.count == 32)
        #expect(!first.constantTimeEquals(second))
    }

    @Test func constantTimeEqualsComparesContentAndLength() throws {
        let key = try CryptoFixtures.key()
        #expect(key.constantTimeEquals(try CryptoFixtures.key()))
        #expect(!key.constantTimeEquals(try CryptoFixtures.key(startingAt: 1)))
        #expect(!key.constantTimeEquals(try CryptoFixtures.key(31)))
        #expect(try SecureBytes(count: 0).constantTimeEquals(try SecureBytes(count: 0)))
    }

    @Test func descriptionShowsTheLengthOnly() throws {
        let secret = try SecureBytes(copying: Array("do-not-print-me!".utf8))
        #expect(secret.description == "SecureBytes(16 bytes)")
        #expect(secret.debugDescription == "SecureBytes(16 bytes)")
        #expect(String(describing: secret) == "SecureBytes(16 bytes)")
        #expect(String(reflecting: secret) == "SecureBytes(16 bytes)")
        #expect("\(secret)" == "SecureBytes(16 bytes)")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("print"))
        #expect(!dumped.contains("0x"))
    }

    @Test func bytesAreReadOnlyAfterInitialisation() async {
        await #expect(processExitsWith: .signal(SIGSEGV)) {
            let key = try SecureBytes(count: 32)
            key.withUnsafeBytes { UnsafeMutableRawPointer(mutating: $0.baseAddress!).storeBytes(of: 1, as: UInt8.self) }
        }
    }

    @Test func sharingAcrossTasksReadsTheSameBytes() async throws {
        let key = try CryptoFixtures.key()
        let copies = await withTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<8 { group.addTask { key.copyToArray() } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(copies.allSatisfy { $0 == Array(0..<32) })
    }
}
