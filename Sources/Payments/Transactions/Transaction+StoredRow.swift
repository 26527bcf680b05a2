import Foundation
public import Vault

extension Transaction {
    /// The row of `transactions` as both engines store it (same columns, same formats), read in
    /// one place so the engines cannot drift apart.
    public init(storedRow row: some StoredRow) throws {
        let stored = try row.table("transactions")
        var transaction = Transaction(
            id: stored.id, merchantID: try row.string("merchant_id"),
            type: try stored.value(TransactionType.self, "type"), amount: try row.int64("amount"),
            currency: try stored.currency("currency"), gateway: try row.string("gateway"),
            now: try stored.instant("created_at"),
            idempotencyKey: try row.string("idempotency_key"), orderReference: try row.string("order_reference"))
        transaction.status = try stored.value(TransactionStatus.self, "status")
        transaction.secureCardReference = try row.optionalString("secure_card_id")
        transaction.merchantReference = try row.optionalString("merchant_reference")
        transaction.cardType = try row.optionalString("card_type")
        transaction.maskedNumber = try row.optionalString("masked_number")
        transaction.scheduleID = try row.optionalString("schedule_id")
        transaction.stepID = try row.optionalString("step_id")
        transaction.attempt = try row.optionalInt("attempt")
        transaction.parentID = try row.optionalString("parent_id")
        transaction.description = try row.optionalString("description")
        transaction.gatewayTransactionID = try row.optionalString("gateway_transaction_id")
        transaction.authCode = try row.optionalString("auth_code")
        transaction.responseCode = try row.optionalString("response_code")
        transaction.responseText = try row.optionalString("response_text")
        transaction.avsResult = try row.optionalString("avs_result")
        transaction.cvvResult = try row.optionalString("cvv_result")
        transaction.declineCode = try row.optionalString("decline_code")
        transaction.declineCategory = try row.optionalString("decline_category")
        transaction.errorCode = try row.optionalString("error_code")
        transaction.storedCredential = try stored.optionalValue(StoredCredentialKind.self, "stored_credential")
        transaction.networkTransactionID = try row.optionalString("network_transaction_id")
        transaction.capturedAmount = try row.int64("captured_amount")
        transaction.refundedAmount = try row.int64("refunded_amount")
        transaction.voidedAmount = try row.int64("voided_amount")
        transaction.updatedAt = try stored.optionalInstant("updated_at") ?? transaction.createdAt
        transaction.sequence = try row.int64("seq")
        transaction.binding = try row.optionalBlob("binding")
        transaction.sealedReceiptAddress = try row.optionalBlob("receipt_address")
        self = transaction
    }
}
