import Foundation
import Logging
import Vault

extension ChargeRunner {
    /// Materializes open-ended schedules' steps through today + horizon in each schedule's zone.
    /// A schedule whose rows this build cannot read is logged and left as it is.
    func extendHorizons(_ options: Options) async throws -> Int {
        var extended = 0
        for read in try await store.openEndedSchedules(merchantID: options.merchantID) {
            let schedule: Schedule
            switch read {
            case .success(let readable):
                schedule = readable
            case .failure(let error):
                logUnextended(error)
                continue
            }
            guard let zone = TimeZone(identifier: schedule.plan.timeZone ?? "UTC"), let through = schedule.materializedThrough else { continue }
            let target = DueInstant.civilDate(of: options.asOf, in: zone).adding(days: options.horizonDays)
            guard target > through else { continue }
            // New steps take the schedule's amount and are bound: a schedule altered behind the
            // vault's back gets none (its due steps go to review when claimed).
            guard await binding.isIntact(schedule) else {
                logger.error("an open-ended schedule failed its integrity check; it is not extended", metadata: ["schedule": "\(schedule.id)"])
                continue
            }
            let rules = PlanRules(defaultTimeZone: zone, maxCount: Int.max, today: .min)
            guard let plan = try? Plan(validating: schedule.plan, rules: rules) else { continue }
            let last: ScheduleStep?
            do {
                last = try await store.lastStep(scheduleID: schedule.id)
            } catch let error as StoredRowError {
                logUnextended(error)
                continue
            }
            let planned = plan.steps(after: last?.sequence ?? 0, horizon: target, limit: options.horizonDays * 2 + 10)
            var updated = schedule
            updated.materializedThrough = target
            updated.updatedAt = Date()
            var steps: [ScheduleStep] = []
            for step in planned {
                steps.append(try await binding.bound(ScheduleStep(
                    id: OpaqueToken.make(prefix: "stp_", randomBits: 100), scheduleID: schedule.id, sequence: step.sequence, date: step.date,
                    dueAt: step.dueAt, amount: schedule.amount, currency: schedule.currency, status: .scheduled, attempts: 0, nextAttemptAt: nil),
                    merchantID: schedule.merchantID))
            }
            do {
                try await store.saveSchedule(
                    updated, expectedStatus: schedule.status, stepUpdates: [], newSteps: steps,
                    audit: AuditEntry(merchantID: schedule.merchantID, actor: "runner", action: "schedule.extended", objectType: "schedule",
                                      objectID: schedule.id, details: ["through": target.iso, "newSteps": String(steps.count)]))
                extended += 1
            } catch is ScheduleError {
                continue
            } catch let error as any StorageError where error.isUniqueViolation {
                continue
            }
        }
        return extended
    }

    private func logUnextended(_ error: StoredRowError) {
        logger.error("an open-ended schedule's stored rows cannot be read by this build; it is not extended", metadata: ["error": "\(error)"])
    }
}
