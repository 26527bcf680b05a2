import Foundation
import Testing
@testable import VaultAPI

/// Batched log output keeps every line whole and in order, and writes warnings before returning.
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
        deinit {
            close(read)
            close(write)
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

    @Test func anUrgentLineIsWrittenBeforeWriteReturnsAfterEverythingBeforeIt() throws {
        let pipe = try Pipe()
        let output = LogOutput(descriptor: pipe.write)
        output.write(Array("first\n".utf8), urgent: false)
        output.write(Array("second\n".utf8), urgent: false)
        output.write(Array("warning\n".utf8), urgent: true)
        #expect(pipe.available() == "first\nsecond\nwarning\n")
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

    @Test func writersWaitForRoomInsteadOfQueueingWithoutBound() async throws {
        let pipe = try Pipe()
        let output = LogOutput(descriptor: pipe.write, queueLimit: 4096)
        let line = Array((String(repeating: "y", count: 99) + "\n").utf8)
        let lines = 2_000
        // Nobody reads yet: the pipe (64 KiB) fills, the writing thread blocks, the queue fills.
        let writer = Task.detached {
            for _ in 0..<lines { output.write(line, urgent: false) }
        }
        var received = ""
        while output.queuedByteCount < 4096 - line.count { await Task.yield() }
        #expect(output.queuedByteCount <= 4096 + line.count)
        while received.utf8.count < lines * line.count {
            received += pipe.available()
            await Task.yield()
        }
        await writer.value
        #expect(received.utf8.count == lines * line.count)
        #expect(received.split(separator: "\n").allSatisfy { $0.utf8.count == 99 })
    }

    /// A stopped server exits even when nobody reads its standard error: the exit's write gives up
    /// instead of blocking for ever (it did, and a test waiting for the server hung the whole run).
    @Test(.timeLimit(.minutes(1)))
    func theWriteAtExitGivesUpWhenNobodyReads() async throws {
        let pipe = try Pipe()
        let output = LogOutput(descriptor: pipe.write)
        let line = Array((String(repeating: "z", count: 299) + "\n").utf8)
        // 150 KiB into a 64 KiB pipe nobody reads: the writing thread takes it all and blocks in
        // write(2), holding the descriptor.
        for _ in 0..<500 { output.write(line, urgent: false) }
        while output.queuedByteCount > 0 { await Task.yield() }
        #expect(output.flush(givingUpAfter: .milliseconds(200)) == false)
        // Once read, nothing was lost, and a reader that keeps up gets the exit's write.
        var received = ""
        while received.utf8.count < 500 * line.count {
            received += pipe.available()
            await Task.yield()
        }
        output.write(Array("last\n".utf8), urgent: false)
        #expect(output.flush(givingUpAfter: .seconds(10)))
        while !received.hasSuffix("last\n") {
            received += pipe.available()
            await Task.yield()
        }
        #expect(received.split(separator: "\n").count == 501)
    }
}
