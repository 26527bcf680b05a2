import Foundation
import Hummingbird
import Payments
import Scheduler
import Vault

/// The schedule routes of the API.
struct SchedulesController {
    let schedules: ScheduleService
    let transactions: TransactionService
    /// Seals the list's cursors.
    let cursorKeys: ListCursorKeys

    func addRoutes(to api: APIRoutes) {
        let admin = api.adminOnly
        let readers = api.admitting(.admin, .readonly)
        admin.post("schedules") { request, context in
            let body = try await JSONCoding.decode(ScheduleRequest.self, from: request).schedule
            let view = try await schedules.create(body, merchant: context.merchant, actor: context.identity.actor)
            return try JSONCoding.response(ScheduleResponse(view), status: .created)
        }
        admin.post("schedules/preview") { request, context in
            let body = try await JSONCoding.decode(ScheduleRequest.self, from: request).schedule
            let view = try await schedules.preview(body, merchant: context.merchant)
            return try JSONCoding.response(PreviewResponse(view))
        }
        readers.get("schedules") { request, context in
            let cursors = try await cursorKeys.cursors(merchantID: context.merchant.id, list: "schedules")
            let page = try PageRequest(query: request.uri, cursors: cursors)
            var status: ScheduleStatus?
            if let text = request.uri.queryParameters["status"] {
                guard let value = ScheduleStatus(rawValue: String(text)) else {
                    throw APIError.invalid("status is not a schedule status.", code: "invalid_value", param: "status")
                }
                status = value
            }
            let card = request.uri.queryParameters["secureCardReference"].map(String.init)
            if let card, !OpaqueToken.isWellFormed(card, prefix: "sc_") {
                throw APIError.invalid("secureCardReference is not a card token (sc_...).", code: "invalid_value", param: "secureCardReference")
            }
            let found = try await schedules.list(
                merchant: context.merchant, status: status, secureCardReference: card, afterSequence: try page.afterSequence, limit: page.limit + 1)
            let items = found.map { ScheduleResponse(ScheduleView(schedule: $0, steps: [], warnings: []), includeSteps: false) }
            return try JSONCoding.response(Page(fetched: items, limit: page.limit) { try cursors.cursor(after: String($0.sequence)) })
        }
        readers.get("schedules/:id") { _, context in
            let view = try await schedules.get(id: try context.parameters.require("id"), merchant: context.merchant)
            return try JSONCoding.response(ScheduleResponse(view))
        }
        readers.get("schedules/:id/steps") { _, context in
            let view = try await schedules.get(id: try context.parameters.require("id"), merchant: context.merchant)
            var attempts: [String: [Transaction]] = [:]
            var before: Int64?
            while true {
                let page = try await transactions.list(
                    merchant: context.merchant, filter: TransactionFilter(scheduleID: view.schedule.id), beforeSequence: before, limit: 500)
                for transaction in page where transaction.stepID != nil { attempts[transaction.stepID!, default: []].append(transaction) }
                guard page.count == 500, let last = page.last else { break }
                before = last.sequence
            }
            var responses: [String: [TransactionResponse]] = [:]
            for (stepID, found) in attempts {
                responses[stepID] = await transactions.responses(found.sorted { $0.sequence < $1.sequence }, merchant: context.merchant)
            }
            let steps = view.steps.map { step in
                StepWithTransactions(step: StepResponse(step), nextAttemptAt: step.nextAttemptAt, transactions: responses[step.id] ?? [])
            }
            return try JSONCoding.response(["data": steps])
        }
        admin.patch("schedules/:id") { request, context in
            let change = try await JSONCoding.decode(ScheduleChangeRequest.self, from: request).change
            let view = try await schedules.change(id: try context.parameters.require("id"), change, merchant: context.merchant, actor: context.identity.actor)
            return try JSONCoding.response(ScheduleResponse(view))
        }
        admin.post("schedules/:id/confirm") { _, context in
            let view = try await schedules.confirm(id: try context.parameters.require("id"), merchant: context.merchant, actor: context.identity.actor)
            return try JSONCoding.response(ScheduleResponse(view))
        }
        admin.post("schedules/:id/pause") { _, context in
            let view = try await schedules.pause(id: try context.parameters.require("id"), merchant: context.merchant, actor: context.identity.actor)
            return try JSONCoding.response(ScheduleResponse(view))
        }
        admin.post("schedules/:id/resume") { request, context in
            let catchUp = try SecureCardsController.flag(request.uri.queryParameters["catchUp"].map(String.init), name: "catchUp")
            let view = try await schedules.resume(
                id: try context.parameters.require("id"), catchUp: catchUp, merchant: context.merchant, actor: context.identity.actor)
            return try JSONCoding.response(ScheduleResponse(view))
        }
        admin.post("schedules/:id/cancel") { _, context in
            let view = try await schedules.cancel(id: try context.parameters.require("id"), merchant: context.merchant, actor: context.identity.actor)
            return try JSONCoding.response(ScheduleResponse(view))
        }
        admin.post("schedules/:id/steps/:stepId/skip") { _, context in
            let view = try await schedules.skip(
                id: try context.parameters.require("id"), stepID: try context.parameters.require("stepId"), merchant: context.merchant,
                actor: context.identity.actor)
            return try JSONCoding.response(ScheduleResponse(view))
        }
    }
}

/// A step in JSON.
struct StepResponse: Encodable {
    var id: String?
    var sequence: Int
    var date: String
    var dueAt: Date
    var amount: Int64
    var currency: String
    var status: String
    var attempts: Int

    init(_ step: ScheduleStep) {
        id = step.id.isEmpty ? nil : step.id
        sequence = step.sequence
        date = step.date.iso
        dueAt = step.dueAt
        amount = step.amount
        currency = step.currency.code
        status = step.status.rawValue
        attempts = step.attempts
    }
}

/// A step with its charge attempts (`GET /v1/schedules/{id}/steps`).
struct StepWithTransactions: Encodable {
    var step: StepResponse
    var nextAttemptAt: Date?
    var transactions: [TransactionResponse]

    private enum CodingKeys: String, CodingKey { case id, sequence, date, dueAt, amount, currency, status, attempts, nextAttemptAt, transactions }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(step.id, forKey: .id)
        try container.encode(step.sequence, forKey: .sequence)
        try container.encode(step.date, forKey: .date)
        try container.encode(step.dueAt, forKey: .dueAt)
        try container.encode(step.amount, forKey: .amount)
        try container.encode(step.currency, forKey: .currency)
        try container.encode(step.status, forKey: .status)
        try container.encode(step.attempts, forKey: .attempts)
        try container.encode(nextAttemptAt, forKey: .nextAttemptAt)
        try container.encode(transactions, forKey: .transactions)
    }
}

/// `POST /v1/schedules/preview`: the steps, without ids, and nothing saved.
struct PreviewResponse: Encodable {
    struct PreviewStep: Encodable {
        var sequence: Int
        var date: String
        var dueAt: Date
        var amount: Int64
        var currency: String
        var status: String
    }

    var status = "preview"
    var steps: [PreviewStep]
    var warnings: [String]

    init(_ view: ScheduleView) {
        steps = view.steps.map {
            PreviewStep(sequence: $0.sequence, date: $0.date.iso, dueAt: $0.dueAt, amount: $0.amount, currency: $0.currency.code, status: $0.status.rawValue)
        }
        warnings = view.warnings
    }
}

/// A schedule in JSON: its plan fields, its status and its steps.
struct ScheduleResponse: Encodable {
    var id: String
    var status: String
    var secureCardReference: String
    var amount: Int64
    var currency: String
    var description: String?
    var externalId: String?
    var receiptEmail: String?
    var receiptPhone: String?
    var type: String?
    var startDate: String?
    var endType: String?
    var endDate: String?
    var endCount: Int?
    var month: Int?
    var day: Int?
    var hour: Int?
    var minute: Int?
    var dates: [String]?
    var timeZone: String?
    var materializedThrough: String?
    var createdAt: Date
    var updatedAt: Date
    var confirmedAt: Date?
    var expiresAt: Date?
    var steps: [StepResponse]?
    var warnings: [String]
    let sequence: Int64

    init(_ view: ScheduleView, includeSteps: Bool = true) {
        let schedule = view.schedule
        id = schedule.id
        status = schedule.status.rawValue
        secureCardReference = schedule.secureCardReference
        amount = schedule.amount
        currency = schedule.currency.code
        description = schedule.description
        externalId = schedule.externalID
        receiptEmail = schedule.receiptEmail
        receiptPhone = schedule.receiptPhone
        type = schedule.plan.type
        startDate = schedule.plan.startDate
        endType = schedule.plan.endType
        endDate = schedule.plan.endDate
        endCount = schedule.plan.endCount
        month = schedule.plan.month
        day = schedule.plan.day
        hour = schedule.plan.hour
        minute = schedule.plan.minute
        dates = schedule.plan.dates
        timeZone = schedule.plan.timeZone
        materializedThrough = schedule.materializedThrough?.iso
        createdAt = schedule.createdAt
        updatedAt = schedule.updatedAt
        confirmedAt = schedule.confirmedAt
        expiresAt = schedule.expiresAt
        steps = includeSteps ? view.steps.map(StepResponse.init) : nil
        warnings = view.warnings
        sequence = schedule.sequence
    }

    private enum CodingKeys: String, CodingKey {
        case id, status, secureCardReference, amount, currency, description, externalId, receiptEmail, receiptPhone, type, startDate, endType
        case endDate, endCount, month, day, hour, minute, dates, timeZone, materializedThrough, createdAt, updatedAt, confirmedAt, expiresAt
        case steps, warnings
    }
}
