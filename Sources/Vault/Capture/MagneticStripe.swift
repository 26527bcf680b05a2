/// Raw magnetic-stripe data as a swipe reader delivers it (ISO/IEC 7813 tracks 1 and 2).
///
/// Accepted input: track 1 `%B<PAN>^<SURNAME/GIVEN>^<YYMM><service code>...?` and/or
/// track 2 `;<PAN>=<YYMM><service code>...?`, in any order, each optionally followed by its
/// LRC character, with any reader framing around them (header bytes, CR/LF, labels): bytes
/// outside the sentinels are ignored. `%E?` / `;E?` are reader-reported read errors. A second
/// `;` segment is taken to be track 3 and ignored.
///
/// Rules: a malformed track fails the whole swipe (`invalid_track`), even if the other track is
/// good; a track the reader flagged `E` is skipped if the other track is good, and if no track is
/// usable the swipe fails with `track_read_error`. When both tracks are present their PAN and
/// expiry must agree. Errors name the field `track` and never quote the data.
public enum MagneticStripe {
    /// Longest raw input examined, in UTF-8 bytes; longer input is rejected (a swipe is a few hundred).
    public static let maximumInputLength = 4096

    static let track1Start: UInt8 = 0x25  // %
    static let track2Start: UInt8 = 0x3B  // ;
    static let endSentinel: UInt8 = 0x3F  // ?
    static let readErrorMarker: UInt8 = 0x45  // E
    static let field = "track"

    /// Parses raw reader output into its tracks.
    /// - Throws: ``CardDataError`` on field `track`: `missing`, `invalid_track`, `track_read_error`,
    ///   or a PAN/expiry code (`luhn_check_failed`, `invalid_expiry`, ...).
    public static func parse(_ raw: String) throws(CardDataError) -> Tracks {
        let bytes = Array(raw.utf8.prefix(maximumInputLength + 1))
        guard bytes.count <= maximumInputLength else {
            throw invalid("The track data is too long.")
        }
        guard bytes.contains(where: { !ASCII.isWhitespace($0) }) else {
            throw CardDataError(field: field, code: CardDataError.Code.missing, message: "The track data is empty.")
        }

        var track1: Track1?
        var track2: Track2?
        var track1ReadError = false
        var track2ReadError = false
        var sawTrack2Segment = false

        var index = 0
        while index < bytes.count {
            let sentinel = bytes[index]
            guard sentinel == track1Start || sentinel == track2Start else {
                index += 1
                continue
            }
            let isTrack3 = sentinel == track2Start && sawTrack2Segment
            guard let end = bytes[(index + 1)...].firstIndex(of: endSentinel) else {
                if isTrack3 { break }
                throw invalid("A track has no end sentinel.")
            }
            let content = bytes[(index + 1)..<end]
            let segment = bytes[index...end]
            index = end + 1
            if isTrailingLRC(in: bytes, at: index, lrc: longitudinalRedundancyCheck(of: segment, track1: sentinel == track1Start)) {
                index += 1
            }
            if isTrack3 { continue }

            let isReadError = content.count == 1 && content.first == readErrorMarker
            if sentinel == track1Start {
                guard track1 == nil, !track1ReadError else { throw invalid("The data holds more than one track 1.") }
                if isReadError { track1ReadError = true } else { track1 = try Track1(content: content) }
            } else {
                sawTrack2Segment = true
                if isReadError { track2ReadError = true } else { track2 = try Track2(content: content) }
            }
        }

        guard track1 != nil || track2 != nil else {
            if track1ReadError || track2ReadError {
                throw CardDataError(field: field, code: CardDataError.Code.trackReadError,
                                    message: "The reader reported a read error; swipe the card again.")
            }
            throw invalid("No magnetic-stripe track was found.")
        }
        return try Tracks(track1: track1, track2: track2, track1ReadError: track1ReadError, track2ReadError: track2ReadError)
    }

    /// The LRC character a reader may append after the end sentinel: the XOR of the track's
    /// characters in their 6-bit (track 1) or 4-bit (track 2) code, from start to end sentinel.
    static func longitudinalRedundancyCheck(of segment: ArraySlice<UInt8>, track1: Bool) -> UInt8 {
        let base: UInt8 = track1 ? 0x20 : 0x30
        let mask: UInt8 = track1 ? 0x3F : 0x0F
        var lrc: UInt8 = 0
        for byte in segment { lrc ^= (byte &- base) & mask }
        return lrc &+ base
    }

    /// Whether the byte at `index` is the LRC of the track just read. An LRC that happens to be a
    /// start sentinel is taken as the LRC only when it cannot begin a track: another sentinel
    /// follows at once, or no end sentinel follows at all.
    static func isTrailingLRC(in bytes: [UInt8], at index: Int, lrc: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == lrc else { return false }
        guard lrc == track1Start || lrc == track2Start else { return true }
        let next = index + 1
        if next < bytes.count, bytes[next] == track1Start || bytes[next] == track2Start { return true }
        return !bytes[next...].contains(endSentinel)
    }

    static func invalid(_ message: String) -> CardDataError {
        CardDataError(field: field, code: CardDataError.Code.invalidTrack, message: message)
    }
}
