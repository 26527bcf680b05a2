import Vault

/// Raw swipe data: the input, as UTF-8 text (repaired like a JSON string), is what a reader sends.
///
/// Beyond not crashing: an accepted swipe gives a well-formed card, `CardCapture.track` agrees with
/// `MagneticStripe.parse`, and no error quotes digits of the input.
public enum TrackFuzzTarget {
    /// The body of `TrackFuzzer`: throws a ``FuzzFinding`` when `bytes` break a property.
    public static func run(_ bytes: [UInt8]) throws {
        let raw = String(decoding: bytes, as: UTF8.self)
        let parsed: MagneticStripe.Tracks?
        do {
            parsed = try MagneticStripe.parse(raw)
        } catch {
            try FuzzOracle.expectNoCardData(in: error, from: [raw])
            parsed = nil
        }
        let card: CapturedCard
        do {
            card = try CardCapture.track(raw)
        } catch {
            try FuzzOracle.expectNoCardData(in: error, from: [raw])
            if parsed != nil { throw FuzzFinding("CardCapture.track refused a swipe MagneticStripe.parse accepted") }
            return
        }
        try FuzzOracle.expectWellFormed(card)
        guard let parsed, parsed.pan == card.pan, parsed.expiry == card.expiry else {
            throw FuzzFinding("CardCapture.track and MagneticStripe.parse disagree")
        }
    }
}
