public import Payments
import PostgresNIO

extension PostgresStore: TransactionReceiptAddressStore {
    public func receiptAddressesToReseal(merchantID: String, belowKeyVersion keyVersion: Int, limit: Int) async throws
        -> [(id: String, sealed: [UInt8])]
    {
        // The first four bytes of a sealed record are its key version, big-endian: bytea compares
        // bytewise, so a prefix below the header selects older versions.
        let header = bytea((0..<4).map { UInt8(truncatingIfNeeded: keyVersion >> (24 - 8 * $0)) })
        return try await billingRead { connection in
            try await connection.rows(
                """
                SELECT id, receipt_address FROM transactions
                WHERE merchant_id = \(merchantID) AND receipt_address IS NOT NULL AND substring(receipt_address FROM 1 FOR 4) < \(header)
                LIMIT \(limit)
                """
            ).map { (try $0.string("id"), try $0.blob("receipt_address")) }
        }
    }

    public func resealReceiptAddress(transactionID: String, merchantID: String, old: [UInt8], new: [UInt8]) async throws -> Bool {
        try await write { write in
            try await write.run(
                """
                UPDATE transactions SET receipt_address = \(bytea(new))
                WHERE id = \(transactionID) AND merchant_id = \(merchantID) AND receipt_address = \(bytea(old)) RETURNING seq
                """) == 1
        }
    }
}
