import Vault

/// BridgePay's invoice number for an order reference: 1-12 ASCII letters and digits (seed:
/// `InvoiceNumber`, "Alpha/Numeric characters only", max 12), derived deterministically so a
/// charge whose answer was lost is found again from our reference alone.
///
/// A reference that already fits (1-12 letters and digits) is sent as it is, so operators see
/// their own order number in BridgePay's reports. Any other reference (ours are up to 20
/// characters with `_` and `-`) becomes 12 upper-case base-36 digits of its SHA-256 digest
/// (62 bits; two references share one with odds of 1 in 2^62 per pair).
enum BridgePayInvoiceNumber {
    /// The invoice number for `reference`.
    static func of(_ reference: String) -> String {
        if (1...BridgePayWire.invoiceNumberLength).contains(reference.utf8.count), reference.utf8.allSatisfy(isAlphanumeric) {
            return reference
        }
        let digest = Digest.sha256(Array("bridgepay-invoice:\(reference)".utf8))
        var value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        var digits: [UInt8] = []
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for _ in 0..<BridgePayWire.invoiceNumberLength {
            digits.append(alphabet[Int(value % 36)])
            value /= 36
        }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }

    /// Whether a byte is an ASCII letter or digit.
    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }
}
