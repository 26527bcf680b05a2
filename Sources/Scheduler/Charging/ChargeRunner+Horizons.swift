import Foundation
import Vault

extension ChargeRunner {
    /// Materializes open-ended schedules' steps through today + horizon in each schedule's zone.
    func extendHorizons(_ options: Options) async throws -> Int {
        var extended = 0
        for schedule in try await store.openEndedSchedules(merchantID: options.merchantID) {
            guard let zone = TimeZone(identifier: schedule.plan.timeZone ?? "UTC"), let through = schedule.materializedThrough else { continue }
            let target = DueInstant.civilDate(of: options.asOf, in: zone).adding(days: options.horizonDays)
            guard target > through else { continue }
            let rules = PlanRules(defaultTimeZone: zone, maxCount: Int.max, today: .min)
            guard let plan = try? Plan(validating: schedule.plan, rules: rules) else { continue }
            let last = try await store.lastStep(scheduleID: schedule.id)
            let planned = plan.steps(after: last?.sequence ?? 0, horizon: target, limit: options.horizonDays * 2 + 10)
            var updated = schedule
            updated.materializedThrough = target
            updated.updatedAt = Date()
            let steps = planned.map { step in
                ScheduleStep(
                    id: OpaqueToken.make(prefix: "stp_", randomBits: 100), scheduleID: schedule.id, sequence: step.sequence, date: step.date,
                    dueAt: step.dueAt, amount: schedule.amount, currency: schedule.currency, status: .scheduled, attempts: 0, nextAttemptAt: nil)
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
}
