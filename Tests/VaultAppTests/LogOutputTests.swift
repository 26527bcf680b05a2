import Foundation
import Testing
@testable import VaultAPI
@testable import VaultApp

/// Batched log output keeps every line whole and in order, writes warnings at once, and never
/// makes a writer wait for a reader that stalled: what does not fit is dropped and counted.
@Suite struct LogOutputTests {
    /// A pipe (64 KiB buffer: tests stay below it) and a way to read what has arrived.
    final class Pipe: @unchecked Sendable {
        // @unchecked Sendable is safe: the descriptors are immutable after init.
        let read: Int32
        let write: Int32
        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
            (read, write) = (ends[0], ends[1])
            _ = fcntl(read, F_SETFL, fcntl(read, F_GETFL) | O_NONBLOCK)
        }
        /// The write end is never closed: the output writing to it keeps its thread for the
        /// process's life, and a number closed here would be reused by another test's file or
        /// socket, which that thread's next write would then corrupt.
        deinit {
            close(read)
        }
        func available() -> String {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { Glibc.read(read, $0.baseAddress!, $0.count) }
                guard count > 0 else { break }
                bytes += chunk[0..<count]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    @Test func flushedLinesArriveWholeAndInOrder() throws {
        let pipe = try Pipe()
        let output = LogOutput(descriptor: pipe.write)
        for index in 0..<500 { output.write(Array("line \(index)\n".utf8), urgent: false) }
        output.flush()
        var received = pipe.available()
        for _ in 0..<100 where received.split(separator: "\n").count < 500 { received += pipe.available() }
        #expect(received.split(separator: "\n") == (0..<500).map { "line \($0)"[...] })
    }

    @Test func anUrgentLineIsWrittenAtOnceAfterEverythingBeforeIt() async throws {
        let pipe = try Pipe()
        let output = LogOutput(descriptor: pipe.write)
        output.write(Array("first\n".utf8), urgent: false)
        output.write(Array("second\n".utf8), urgent: false)
        output.write(Array("warning\n".utf8), urgent: true)
        // No flush: the urgent line wakes the writing thread, which writes the queue in order.
        var received = pipe.available()
        while !received.hasSuffix("warning\n") {
            await Task.yield()
            received += pipe.available()
        }
        #expect(received == "first\nsecond\nwarning\n")
    }

    @Test func concurrentWritersNeverInterleaveWithinALine() async throws {
        let pipe = try Pipe()
        let output = LogOutput(descriptor: pipe.write)
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for index in 0..<100 { output.write(Array("w\(writer)-\(index)-\(String(repeating: "x", count: 40))\n".utf8), urgent: index % 50 == 0) }
                }
            }
        }
        output.flush()
        let lines = pipe.available().split(separator: "\n")
        #expect(lines.count == 800)
        #expect(lines.allSatisfy { $0.hasSuffix(String(repeating: "x", count: 40)) && $0.hasPrefix("w") })
        for writer in 0..<8 {
            let own = lines.filter { $0.hasPrefix("w\(writer)-") }.map { Int($0.split(separator: "-")[1])! }
            #expect(own == Array(0..<100))
        }
    }

    @Test func aWriterNeverWaitsForAStalledReaderAndWhatDoesNotFitIsDroppedAndCounted() async throws {
        let pipe = try Pipe()
        let output = LogOutput(descriptor: pipe.write, queueLimit: 4096)
        let line = Array((String(repeating: "y", count: 99) + "\n").utf8)
        let lines = 2_000
        // Nobody reads: the pipe (64 KiB) fills and the writing thread blocks in write(2). The
        // writers, warnings included, go on: 2,000 lines return although a fraction fits.
        for index in 0..<lines { output.write(line, urgent: index % 100 == 0) }
        #expect(output.queuedByteCount <= 4096)
        let dropped = output.droppedLineCount
        #expect(dropped > 0 && dropped < lines)

        // Once the reader reads again, every line kept arrives whole, and a new one is taken.
        var received = ""
        while output.queuedByteCount > 0 {
            received += pipe.available()
            await Task.yield()
        }
        output.write(Array("last\n".utf8), urgent: true)
        while !received.hasSuffix("last\n") {
            received += pipe.available()
            await Task.yield()
        }
        let arrived = received.split(separator: "\n")
        #expect(arrived.dropLast().allSatisfy { $0.utf8.count == 99 })
        #expect(arrived.count - 1 == lines - dropped)
    }

    /// A stopped server exits even when nobody reads its standard error: the exit's write gives up
    /// instead of blocking for ever (it did, and a test waiting for the server hung the whole run).
    @Test func theWriteAtExitGivesUpWhenNobodyReads() async throws {
        let pipe = try Pipe()
        // Fill the pipe through a second, non-blocking opening of it: nobody reads, no room is left.
        let filler = open("/proc/self/fd/\(pipe.write)", O_WRONLY | O_NONBLOCK)
        try #require(filler >= 0)
        let block = [UInt8](repeating: UInt8(ascii: "f"), count: 4096)
        var filled = 0
        // Blocks, then single bytes for whatever room a block no longer fits in.
        for size in [block.count, 1] {
            while true {
                let written = block.withUnsafeBytes { Glibc.write(filler, $0.baseAddress!, size) }
                guard written > 0 else { break }
                filled += written
            }
        }
        close(filler)
        let output = LogOutput(descriptor: pipe.write)
        for _ in 0..<10 { output.write(Array("queued\n".utf8), urgent: false) }
        // Whether the writing thread holds the descriptor, blocked, or the exit's write finds the
        // pipe full itself: it gives up.
        #expect(output.flush(givingUpAfter: .milliseconds(200)) == false)

        // A reader that keeps up again gets what is written after, whole.
        let deadline = ContinuousClock.now + .seconds(60)
        var received = ""
        output.write(Array("last\n".utf8), urgent: false)
        while !received.hasSuffix("last\n"), ContinuousClock.now < deadline {
            received += pipe.available()
            _ = output.flush(givingUpAfter: .milliseconds(100))
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(received.hasSuffix("last\n"))
        #expect(received.utf8.count >= filled)
        let lines = received.dropFirst(filled).split(separator: "\n")
        #expect(lines.allSatisfy { $0 == "queued" || $0 == "last" }, "\(lines)")
    }
}
