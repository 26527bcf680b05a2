import FuzzHarness

/// libFuzzer's entry point; the body, `JSONRequestFuzzTarget`, is in the vault's `FuzzHarness` module
/// (built and replayed on this target's corpus by the vault's own tests).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    FuzzEntry.run(start, count, JSONRequestFuzzTarget.run)
}
