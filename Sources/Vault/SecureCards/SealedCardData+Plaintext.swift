internal import CSodium

extension SealedCardData {
    /// The plaintext sealed for a card: `{"holderName":"…","pan":"…"}` (no holder name when absent).
    ///
    /// Written by hand into one array, which `body` borrows and which is zeroed afterwards: the PAN
    /// is never in an encoder's intermediate buffers, and the copy is wiped, not just freed.
    static func withPlaintext<R>(pan: String, holderName: String?, _ body: ([UInt8]) async throws -> R) async rethrows -> R {
        var plaintext: [UInt8] = []
        // Room for the worst case (45 bytes of framing and a 19-digit PAN, six bytes per escaped
        // name byte), so the array never grows: a reallocation would leave a copy that is not zeroed.
        plaintext.reserveCapacity(64 + (holderName?.utf8.count ?? 0) * 6)
        plaintext.append(UInt8(ascii: "{"))
        if let holderName {
            plaintext.append(contentsOf: #""holderName":"#.utf8)
            CanonicalJSON.append(string: holderName, to: &plaintext)
            plaintext.append(UInt8(ascii: ","))
        }
        plaintext.append(contentsOf: #""pan":"#.utf8)
        CanonicalJSON.append(string: pan, to: &plaintext)
        plaintext.append(UInt8(ascii: "}"))
        defer { plaintext.withUnsafeMutableBytes { sodium_memzero($0.baseAddress!, $0.count) } }
        return try await body(plaintext)
    }
}

extension SealedCardDetails {
    /// The plaintext sealed for a card's personal details, in `CanonicalJSON`'s form (cheaper than
    /// `JSONEncoder` on every registration and update; `JSONDecoder` reads either).
    var plaintext: [UInt8] {
        var object: [String: WebhookValue] = ["customFields": .array(customFields.map { .object(["name": .string($0.name), "value": .string($0.value)]) })]
        if let customer {
            var fields: [String: WebhookValue] = [:]
            fields["email"] = customer.email.map(WebhookValue.string)
            fields["mobileNumber"] = customer.mobileNumber.map(WebhookValue.string)
            fields["city"] = customer.city.map(WebhookValue.string)
            fields["region"] = customer.region.map(WebhookValue.string)
            fields["country"] = customer.country.map(WebhookValue.string)
            fields["ipAddress"] = customer.ipAddress.map(WebhookValue.string)
            object["customer"] = .object(fields)
        }
        var output: [UInt8] = []
        output.reserveCapacity(256)
        CanonicalJSON.append(.object(object), to: &output)
        return output
    }
}
