import Testing
@testable import VaultAPI
@testable import VaultApp

/// The shared watchdog behind request timeouts: cancellation frees a waiter at once and leaves
/// nothing behind; a deadline that has passed releases its waiter at the next tick.
@Suite struct RequestDeadlinesTests {
    @Test func aCancelledWaiterThrowsAndIsForgotten() async throws {
        let deadlines = RequestDeadlines(tick: .seconds(3600))
        let waiter = Task { try await deadlines.wait(for: .seconds(3600)) }
        while deadlines.waitingCount == 0 { await Task.yield() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(deadlines.waitingCount == 0)
    }

    @Test func aWaiterCancelledBeforeItWaitsThrowsAtOnce() async throws {
        let deadlines = RequestDeadlines(tick: .seconds(3600))
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await deadlines.wait(for: .seconds(3600))
        }
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(deadlines.waitingCount == 0)
    }

    @Test func passedDeadlinesReleaseEveryWaiter() async throws {
        let deadlines = RequestDeadlines(tick: .milliseconds(1))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 { group.addTask { try await deadlines.wait(for: .zero) } }
            try await group.waitForAll()
        }
        #expect(deadlines.waitingCount == 0)
    }

    @Test func waitersWithLaterDeadlinesKeepWaiting() async throws {
        let deadlines = RequestDeadlines(tick: .milliseconds(1))
        let late = Task { try await deadlines.wait(for: .seconds(3600)) }
        while deadlines.waitingCount == 0 { await Task.yield() }
        try await deadlines.wait(for: .zero)
        #expect(deadlines.waitingCount == 1)
        late.cancel()
        await #expect(throws: CancellationError.self) { try await late.value }
    }
}
