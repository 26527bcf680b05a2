import Testing
@testable import Vault

@Suite struct LockedSlotPoolTests {
    @Test func aSlotIsZeroedBeforeItIsHandedOutAgain() throws {
        let pool = try #require(LockedSlotPool(slotSize: 32, slotCount: 1))
        let first = try #require(pool.take(count: 32))
        first.pointer.initializeMemory(as: UInt8.self, repeating: 0xA5, count: 32)
        pool.give(back: first.slot, count: 32)
        let second = try #require(pool.take(count: 32))
        #expect(second.slot == first.slot)
        #expect(Array(UnsafeRawBufferPointer(start: second.pointer, count: 32)) == [UInt8](repeating: 0, count: 32))
    }

    @Test func aValueLargerThanASlotGetsNone() throws {
        let pool = try #require(LockedSlotPool(slotSize: 32, slotCount: 2))
        #expect(pool.take(count: 33) == nil)
        #expect(pool.freeSlotCount == 2)
    }

    @Test func anEmptyPoolHandsOutNothingUntilASlotComesBack() throws {
        let pool = try #require(LockedSlotPool(slotSize: 8, slotCount: 2))
        let first = try #require(pool.take(count: 8))
        let second = try #require(pool.take(count: 8))
        #expect(first.slot != second.slot)
        #expect(pool.take(count: 1) == nil)
        pool.give(back: second.slot, count: 8)
        #expect(pool.take(count: 1)?.slot == second.slot)
    }

    @Test func slotsDoNotOverlap() throws {
        let pool = try #require(LockedSlotPool(slotSize: 16, slotCount: 4))
        let slots = (0..<4).compactMap { _ in pool.take(count: 16) }
        for (index, slot) in slots.enumerated() {
            slot.pointer.initializeMemory(as: UInt8.self, repeating: UInt8(index + 1), count: 16)
        }
        for (index, slot) in slots.enumerated() {
            #expect(Array(UnsafeRawBufferPointer(start: slot.pointer, count: 16)) == [UInt8](repeating: UInt8(index + 1), count: 16))
        }
    }
}

@Suite struct BriefSecureBytesTests {
    @Test func briefBytesHoldWhatWasWritten() throws {
        let bytes = try SecureBytes(count: 5, lifetime: .brief) { buffer in
            for index in buffer.indices { buffer[index] = UInt8(index + 1) }
        }
        #expect(bytes.isPooled)
        #expect(bytes.copyToArray() == [1, 2, 3, 4, 5])
    }

    @Test func briefBytesTooLargeForASlotStillWork() throws {
        let size = (LockedSlotPool.shared?.slotSize ?? 0) + 1
        let bytes = try SecureBytes(count: size, lifetime: .brief) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 7)
        }
        #expect(!bytes.isPooled)
        #expect(bytes.copyToArray() == [UInt8](repeating: 7, count: size))
    }

    @Test func longBytesNeverTakeASlot() throws {
        #expect(try !SecureBytes(count: 32).isPooled)
        #expect(try !SecureBytes(count: 32, lifetime: .long) { _ in }.isPooled)
    }

    @Test func aThrowingInitializerOfBriefBytesPropagatesItsError() {
        #expect(throws: CryptoError.sealFailed) {
            try SecureBytes(count: 8, lifetime: .brief) { _ in throw CryptoError.sealFailed }
        }
    }

    @Test func anOpenedRecordIsBriefAndAKeyIsNot() throws {
        let key = try CryptoFixtures.key()
        let sealed = try RecordCipher.seal(Array("holder".utf8), key: key, associatedData: [1])
        let brief = try RecordCipher.open(sealed, key: key, associatedData: [1], lifetime: .brief)
        #expect(brief.isPooled)
        #expect(brief.copyToArray() == Array("holder".utf8))
        #expect(try !RecordCipher.open(sealed, key: key, associatedData: [1]).isPooled)
        #expect(throws: CryptoError.authenticationFailed) {
            try RecordCipher.open(sealed, key: key, associatedData: [2], lifetime: .brief)
        }
    }
}
