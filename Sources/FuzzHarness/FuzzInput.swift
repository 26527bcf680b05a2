/// The bytes libFuzzer hands to `LLVMFuzzerTestOneInput`.
public struct FuzzInput: Sendable {
    /// The input, copied out of libFuzzer's buffer.
    public let bytes: [UInt8]

    /// Copies `count` bytes at `start` (which may be dangling when `count` is 0).
    public init(_ start: UnsafeRawPointer, _ count: Int) {
        bytes = count == 0 ? [] : Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    /// The bytes as the server would see them inside a JSON string: invalid UTF-8 repaired with U+FFFD.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Upper-case hex of `bytes`, as a client sends chip data.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
