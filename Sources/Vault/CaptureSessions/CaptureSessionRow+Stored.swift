import Foundation

extension CaptureSessionRow {
    /// The row of `capture_sessions` as both engines store it.
    public init(storedRow row: some StoredRow) throws {
        let stored = try row.table("capture_sessions")
        var card: CaptureSessionCard?
        if let reference = try row.optionalString("secure_card_reference") {
            card = CaptureSessionCard(
                secureCardReference: reference, maskedNumber: try row.string("masked_number"), cardType: try stored.value(CardBrand.self, "card_type"))
        }
        let origin: CaptureOrigin
        do { origin = try CaptureOrigin(validating: try row.string("allowed_origin")) } catch { throw stored.unreadable("allowed_origin", value: nil) }
        let verify = try row.optionalInt("verify")
        let session = CaptureSession(
            id: stored.id, merchantID: try row.string("merchant_id"), status: try stored.value(CaptureSession.Status.self, "status"),
            allowedOrigin: origin, merchantReference: try row.string("merchant_reference"),
            verify: verify.map { $0 != 0 }, attempts: try row.int("attempts"), card: card, createdAt: try stored.instant("created_at"),
            updatedAt: try stored.instant("updated_at"), expiresAt: try stored.instant("expires_at"))
        self.init(
            session: session, secretMAC: try row.optionalBlob("secret_mac") ?? [], sealedDetails: try row.optionalBlob("sealed_details") ?? [],
            keyVersion: try row.int("key_version"))
    }
}
