import Foundation
import Hummingbird
import Logging
import Scheduler
import Vault

/// `POST /v1/charge-runs` (start a run for the caller's merchant, now; 409 `charge_run_running` while
/// one is running) and `GET /v1/charge-runs/{id}` (its progress and summary). The same runner as
/// `vault charge run`.
struct ChargeRunsController {
    let services: APIServices
    let logger: Logger
    let cursorKeys: ListCursorKeys

    /// Without nulls, and closed by its schema (`ChargeRunRequest`, `additionalProperties: false`):
    /// a misspelt or null `dryRun` must be refused, not start a real run.
    struct StartRequest: Decodable {
        var asOf: String?
        var dryRun: Bool?

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            asOf = container.contains(.asOf) ? try container.decode(String.self, forKey: .asOf) : nil
            dryRun = container.contains(.dryRun) ? try container.decode(Bool.self, forKey: .dryRun) : nil
        }

        private enum CodingKeys: String, CodingKey { case asOf, dryRun }
    }

    /// 503 when no `ChargeRunService` takes runs (the server is stopping).
    static let notRunning = APIError(
        status: .serviceUnavailable, type: "api_error", code: "charge_runs_unavailable",
        message: "Charge runs cannot start now (the server is stopping); try again later.")

    /// 409 `charge_run_running`: the merchant's run already running, named in the message and in `Location`.
    static func alreadyRunning(_ run: ChargeRunRecord) -> APIError {
        var error = APIError.conflict(
            "A charge run of this merchant is already running: \(run.id). Follow it at /v1/charge-runs/\(run.id).", code: "charge_run_running")
        error.headers[.location] = "/v1/charge-runs/\(run.id)"
        return error
    }

    func addRoutes(to api: APIRoutes) {
        // A `runner` key starts runs and follows them; a `readonly` key may follow them.
        api.admitting(.admin, .runner).post("charge-runs") { request, context in
            var request = request
            let body = try await request.collectBody(upTo: .max)
            let start = body.readableBytes == 0 ? StartRequest() : try await JSONCoding.decode(StartRequest.self, from: request)
            var asOf = Date()
            if let text = start.asOf {
                guard let parsed = Timestamp.parse(text) else {
                    throw APIError.invalid("asOf must be an RFC 3339 instant.", code: "invalid_format", param: "asOf")
                }
                guard parsed <= Date() else {
                    throw APIError.invalid("asOf cannot be in the future: steps are charged when they fall due.", code: "in_future", param: "asOf")
                }
                asOf = parsed
            }
            let outcome = try await ChargeRunStarter(services: services).start(
                merchant: context.merchant, asOf: asOf, dryRun: start.dryRun ?? false, actor: context.identity.actor)
            switch outcome {
            case .started(let record): return try JSONCoding.response(ChargeRunResponse(record), status: .accepted)
            case .alreadyRunning(let running): throw Self.alreadyRunning(running)
            case .notAccepting: throw Self.notRunning
            }
        }
        // Every run that charged the merchant's steps, whoever started it (cron and `vault charge run`
        // as well as this API), newest first.
        api.admitting(.admin, .readonly).get("charge-runs") { request, context in
            let cursors = try await cursorKeys.cursors(merchantID: context.merchant.id, list: "charge-runs")
            let page = try PageRequest(query: request.uri, cursors: cursors)
            let runs = try await ChargeRunHistory(store: services.store).list(
                merchant: context.merchant, beforeSequence: try page.afterSequence, limit: page.limit + 1)
            return try JSONCoding.response(
                Page(fetched: runs.map(ChargeRunListItem.init), limit: page.limit) { try cursors.cursor(after: String($0.sequence)) })
        }
        api.admitting(.admin, .runner, .readonly).get("charge-runs/:id") { _, context in
            guard let record = try await services.store.chargeRun(id: try context.parameters.require("id"), merchantID: context.merchant.id) else {
                throw APIError.notFound("charge run", param: "id")
            }
            return try JSONCoding.response(ChargeRunResponse(record))
        }
    }
}

/// A charge run in `GET /v1/charge-runs`: who started it and which merchants' steps it charged,
/// with its summary when it charged only this merchant's.
struct ChargeRunListItem: Encodable {
    var id: String
    var status: String
    var scope: String
    var startedBy: String
    var asOf: Date
    var dryRun: Bool
    var startedAt: Date
    @ExplicitNull var finishedAt: Date?
    @ExplicitNull var summary: ChargeRunSummary?
    /// The cursor's position; not in the JSON.
    var sequence: Int64

    init(_ view: ChargeRunView) {
        id = view.record.id
        status = view.record.status.rawValue
        scope = view.scope.rawValue
        startedBy = view.record.startedBy
        asOf = view.record.asOf
        dryRun = view.record.dryRun
        startedAt = view.record.startedAt
        finishedAt = view.record.finishedAt
        summary = view.summary
        sequence = view.sequence
    }

    private enum CodingKeys: String, CodingKey { case id, status, scope, startedBy, asOf, dryRun, startedAt, finishedAt, summary }
}

/// A charge run in JSON.
struct ChargeRunResponse: Encodable {
    var id: String
    var status: String
    var asOf: Date
    var dryRun: Bool
    var startedAt: Date
    @ExplicitNull var finishedAt: Date?
    @ExplicitNull var summary: ChargeRunSummary?

    init(_ record: ChargeRunRecord) {
        id = record.id
        status = record.status.rawValue
        asOf = record.asOf
        dryRun = record.dryRun
        startedAt = record.startedAt
        finishedAt = record.finishedAt
        summary = record.decodedSummary
    }
}

