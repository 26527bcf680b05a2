public import Payments
import Vault

extension SQLiteStore: TransactionReceiptAddressStore {
    public func receiptAddressesToReseal(merchantID: String, belowKeyVersion keyVersion: Int, limit: Int) async throws
        -> [(id: String, sealed: [UInt8])]
    {
        // The first four bytes of a sealed record are its key version, big-endian: blobs compare
        // bytewise, so `substr(...) < header` selects older versions.
        let header = Keyring.versionHeader(keyVersion)
        return try await database.read { connection in
            try connection.query(
                """
                SELECT id, receipt_address FROM transactions
                WHERE merchant_id = \(merchantID) AND receipt_address IS NOT NULL AND substr(receipt_address, 1, 4) < \(header)
                LIMIT \(limit)
                """
            ).map { (try $0.string("id"), try $0.blob("receipt_address")) }
        }
    }

    public func resealReceiptAddress(transactionID: String, merchantID: String, old: [UInt8], new: [UInt8]) async throws -> Bool {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE transactions SET receipt_address = \(new)
                WHERE id = \(transactionID) AND merchant_id = \(merchantID) AND receipt_address = \(old)
                """)
            return connection.changes == 1
        }
    }
}
