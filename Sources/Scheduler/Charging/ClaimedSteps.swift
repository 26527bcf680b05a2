public import Payments
public import Vault

/// A leased step whose rows this build cannot read (its step, its schedule or its open attempt):
/// the runner does not charge it, logs the error, counts it in the run's summary and keeps its
/// lease until the run ends, so one such row never stops a run.
public struct UnreadableStep: Error, Sendable, Equatable {
    /// The step's id.
    public var stepID: String
    /// Which row and column could not be read.
    public var error: StoredRowError

    /// Creates a value.
    public init(stepID: String, error: StoredRowError) {
        self.stepID = stepID
        self.error = error
    }
}

/// What one claim leased: the steps to charge, in claim order, and those whose rows this build
/// cannot read. A collection of the steps to charge.
public struct ClaimedSteps: RandomAccessCollection, Sendable {
    /// The steps to charge.
    public var due: [DueStep]
    /// Leased steps that cannot be charged by this build.
    public var unreadable: [UnreadableStep]

    /// Creates a value.
    public init(due: [DueStep] = [], unreadable: [UnreadableStep] = []) {
        self.due = due
        self.unreadable = unreadable
    }

    /// The first of the steps to charge.
    public var startIndex: Int { due.startIndex }
    /// Past the last of the steps to charge.
    public var endIndex: Int { due.endIndex }
    /// A step to charge.
    public subscript(position: Int) -> DueStep { due[position] }

    /// Every step the claim leased, readable or not.
    public var leased: Int { due.count + unreadable.count }

    /// Puts a claim's rows together, the same way on every engine.
    ///
    /// - Parameters:
    ///   - steps: the leased steps in claim order, each read or the error of its row.
    ///   - schedules: by id, each schedule read or the error of its row; a step whose schedule is
    ///     missing is left out (as a step of a schedule deleted meanwhile).
    ///   - openAttempts: by step id, the open attempt read or the error of its row.
    public static func assemble(
        steps: [Result<ScheduleStep, UnreadableStep>], schedules: [String: Result<Schedule, StoredRowError>],
        openAttempts: [String: Result<Transaction, StoredRowError>]
    ) -> ClaimedSteps {
        var claimed = ClaimedSteps()
        for result in steps {
            let step: ScheduleStep
            switch result {
            case .failure(let unreadable):
                claimed.unreadable.append(unreadable)
                continue
            case .success(let read):
                step = read
            }
            let schedule: Schedule
            switch schedules[step.scheduleID] {
            case nil:
                continue
            case .failure(let error)?:
                claimed.unreadable.append(UnreadableStep(stepID: step.id, error: error))
                continue
            case .success(let read)?:
                schedule = read
            }
            let openAttempt: Transaction?
            switch openAttempts[step.id] {
            case nil:
                openAttempt = nil
            case .failure(let error)?:
                claimed.unreadable.append(UnreadableStep(stepID: step.id, error: error))
                continue
            case .success(let read)?:
                openAttempt = read
            }
            claimed.due.append(DueStep(step: step, schedule: schedule, openAttempt: openAttempt))
        }
        return claimed
    }

    /// Reads one row, setting aside the error of a row this build cannot read (other errors throw).
    public static func read<Value>(_ body: () throws -> Value) throws -> Result<Value, StoredRowError> {
        do {
            return .success(try body())
        } catch let error as StoredRowError {
            return .failure(error)
        }
    }

    /// Reads one leased `schedule_steps` row, setting aside the error of a row this build cannot
    /// read, with the step's id (other errors throw).
    public static func readStep<Row: StoredRow>(
        _ row: Row, _ decode: (Row) throws -> ScheduleStep
    ) throws -> Result<ScheduleStep, UnreadableStep> {
        switch try read({ try decode(row) }) {
        case .success(let step): .success(step)
        case .failure(let error): .failure(UnreadableStep(stepID: try row.string("id"), error: error))
        }
    }
}
