/// The bridge from libFuzzer's `LLVMFuzzerTestOneInput` to a fuzz target's body.
///
/// The executables in `Fuzz/` hold only their `@_cdecl` entry point and call ``run(_:_:_:)``; the
/// bodies live in this module so the main build compiles them and the tests replay their corpora.
public enum FuzzEntry {
    /// Runs `body` on the `count` bytes at `start`; a ``FuzzFinding`` stops the process, which
    /// libFuzzer records as a crash (saving the input as an artifact). Returns 0 as libFuzzer expects.
    public static func run(_ start: UnsafeRawPointer, _ count: Int, _ body: ([UInt8]) throws -> Void) -> CInt {
        do {
            try body(FuzzInput(start, count).bytes)
        } catch {
            fatalError("fuzz property broken: \(error)")
        }
        return 0
    }
}
