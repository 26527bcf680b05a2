// The README's quick-start flow through a client apple/swift-openapi-generator generated from the
// vault's served /openapi.json (issue 14 item 13): register a card, retrieve it, preview a schedule,
// create it and confirm it. Every response is decoded into the generated types, so a document that
// does not describe what the server sends (or a server that does not take what the document says)
// fails here.
//
// Usage: QuickStart BASE_URL API_KEY [RUN] (RUN labels the card and idempotency key, default 1). Prints one line per step and "swift client: quick start passed";
// exits 1 on the first failure.
import Foundation
import HTTPTypes
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// Sends the merchant's API key on every request (the document's bearer scheme).
struct BearerAuthentication: ClientMiddleware {
    let key: String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(key)"
        return try await next(request, body, baseURL)
    }
}

/// RFC 3339 instants with or without fractional seconds, as the vault writes them.
struct VaultDateTranscoder: DateTranscoder {
    func encode(_ date: Date) throws -> String { date.formatted(.iso8601) }

    func decode(_ string: String) throws -> Date {
        if let date = try? Date(string, strategy: .iso8601) { return date }
        if let date = try? Date(string, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not an RFC 3339 instant: \(string)"))
    }
}

struct QuickStartFailure: Error, CustomStringConvertible {
    let description: String
}

func expect(_ condition: Bool, _ what: @autoclosure () -> String) throws {
    if !condition { throw QuickStartFailure(description: what()) }
}

func quickStart(baseURL: URL, key: String, run: String) async throws {
    let reference = "swift-cust-\(run)"
    let client = Client(
        serverURL: baseURL,
        configuration: Configuration(dateTranscoder: VaultDateTranscoder()),
        transport: AsyncHTTPClientTransport(),
        middlewares: [BearerAuthentication(key: key)]
    )

    // The generated initializers take their arguments in the served document's (sorted) key order.
    let registration = Components.Schemas.SecureCardRegistration(
        card: .init(cvv: "123", expiryDate: "1230", holderName: "Ada Lovelace", number: "4242424242424242"),
        customer: .init(country: "GB", email: "ada@example.com"),
        merchantReference: reference,
        method: .keyed
    )
    let registered = try await client.registerSecureCard(body: .json(registration))
    guard case .created(let created) = registered else { throw QuickStartFailure(description: "register answered \(registered)") }
    let card = try created.body.json
    try expect(card.value2.description == .secureCardSaved && card.value1.last4 == "4242", "register: unexpected description or last4")
    let token = card.value2.secureCardReference
    print("registered \(token) (\(card.value1.cardType.rawValue) \(card.value1.maskedNumber))")

    let retrieved = try await client.retrieveSecureCard(path: .init(merchantReference: reference))
    let stored = try retrieved.ok.body.json
    try expect(stored.value2.secureCardReference == token, "retrieve: another token")
    print("retrieved \(stored.value1.merchantReference)")

    var components = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date().addingTimeInterval(30 * 86_400))
    let startDate = String(format: "%04d-%02d-%02d", components.year!, components.month!, components.day!)
    components.day = min(components.day!, 28)
    let plan = Components.Schemas.ScheduleRequest(
        amount: 1999,
        currency: "USD",
        day: components.day!,
        description: "Gym",
        endCount: 3,
        endType: .count,
        merchantReference: reference,
        startDate: startDate,
        _type: .monthly
    )
    let preview = try await client.previewSchedule(body: .json(plan)).ok.body.json
    try expect(preview.steps.count == 3, "preview: \(preview.steps.count) steps, not three")
    print("previewed " + preview.steps.map(\.date).joined(separator: ", "))

    let createdSchedule = try await client.createSchedule(
        headers: .init(idempotencyKey: "swift-quickstart-\(run)"), body: .json(plan)
    ).created.body.json
    try expect(createdSchedule.value1.status == .pendingConfirmation, "create: \(createdSchedule.value1.status), not pending confirmation")
    let id = createdSchedule.value1.id
    print("created \(id) (\(createdSchedule.value1.status.rawValue))")

    let confirmed = try await client.confirmSchedule(path: .init(id: id)).ok.body.json
    try expect(confirmed.value1.status == .active, "confirm: \(confirmed.value1.status), not active")
    print("confirmed \(confirmed.value1.id) (\(confirmed.value1.status.rawValue))")
}

let arguments = CommandLine.arguments
guard (3...4).contains(arguments.count), let baseURL = URL(string: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: QuickStart BASE_URL API_KEY [RUN]\n".utf8))
    exit(2)
}
do {
    try await quickStart(baseURL: baseURL, key: arguments[2], run: arguments.count == 4 ? arguments[3] : "1")
    print("swift client: quick start passed")
} catch let error as ClientError {
    // Not `\(error)`: it prints the whole request, card number included.
    let status = error.response.map { "HTTP \($0.status.code)" } ?? "no response"
    FileHandle.standardError.write(Data("swift client: \(error.operationID) failed (\(status)): \(error.underlyingError)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("swift client: \(error)\n".utf8))
    exit(1)
}
