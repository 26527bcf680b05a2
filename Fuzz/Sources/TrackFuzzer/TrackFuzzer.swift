import FuzzSupport
import Vault

/// libFuzzer entry: the input, as UTF-8 text (repaired like a JSON string), is raw swipe data.
///
/// Beyond not crashing: an accepted swipe gives a well-formed card, `CardCapture.track` agrees with
/// `MagneticStripe.parse`, and no error quotes digits of the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func trackFuzzerTestOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let raw = FuzzInput(start, count).text
    let parsed: MagneticStripe.Tracks?
    do {
        parsed = try MagneticStripe.parse(raw)
    } catch {
        FuzzOracle.expectNoCardData(in: error, from: [raw])
        parsed = nil
    }
    do {
        let card = try CardCapture.track(raw)
        FuzzOracle.expectWellFormed(card)
        guard let parsed, parsed.pan == card.pan, parsed.expiry == card.expiry else {
            fatalError("CardCapture.track and MagneticStripe.parse disagree")
        }
    } catch {
        FuzzOracle.expectNoCardData(in: error, from: [raw])
        if parsed != nil { fatalError("CardCapture.track refused a swipe MagneticStripe.parse accepted") }
    }
    return 0
}
