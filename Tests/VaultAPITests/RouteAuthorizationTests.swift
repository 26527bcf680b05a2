import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Vault
@testable import VaultAPI
@testable import VaultApp
@testable import VaultAppTestSupport

/// Every `/v1` route states the roles it admits where it is declared, and a key of another role is
/// refused (403, the error envelope) before anything is read or changed.
@Suite struct RouteAuthorizationTests {
    /// What `readonly` keys may call: reads of card metadata, custom fields, transactions, schedules,
    /// statistics, charge runs, the review queue and e-mail receipts. Never a write, never the audit trail.
    static let readonlyRoutes: Set<String> = [
        "GET /v1/capture-sessions/{id}",
        "GET /v1/charge-runs",
        "GET /v1/charge-runs/{id}",
        "GET /v1/custom-fields",
        "GET /v1/review-queue",
        "GET /v1/receipts",
        "GET /v1/schedules",
        "GET /v1/schedules/{id}",
        "GET /v1/schedules/{id}/steps",
        "GET /v1/secure-cards",
        "GET /v1/secure-cards/{merchantReference}",
        "GET /v1/stats",
        "GET /v1/transactions",
        "GET /v1/transactions/{id}",
        "GET /v1/webhook-events",
    ]

    /// What `runner` keys may call: start a charge run and follow it.
    static let runnerRoutes: Set<String> = ["POST /v1/charge-runs", "GET /v1/charge-runs/{id}"]

    /// What is called with a capture session's client secret instead of an API key: the card
    /// submission, and nothing else.
    static let clientSecretRoutes: Set<String> = ["POST /v1/capture-sessions/{id}/card"]

    /// The router's `/v1` routes called with API keys, each with the roles recorded when it was
    /// declared (nil: none declared); the client-secret routes are checked on their own.
    static func declaredRoutes(_ fixture: APIFixture) -> [(route: String, method: HTTPRequest.Method, path: String, roles: Set<APIKeyRole>?)] {
        let (router, authorization) = buildAuthorizedRouter(services: fixture.runtime.apiServices)
        #expect(authorization.clientSecretRoutes == clientSecretRoutes)
        return router.routes
            .filter { $0.path.description.hasPrefix("/v1/") }
            .filter { !authorization.clientSecretRoutes.contains("\($0.method) \($0.path.description)") }
            .map { route in
                let path = route.path.description
                return ("\(route.method) \(path)", route.method, path, authorization.roles(method: route.method, path: path))
            }
            .sorted { $0.route < $1.route }
    }

    @Test func everyAPIRouteOfTheRouterDeclaresItsRoles() async throws {
        let fixture = try await APIFixture()
        let routes = Self.declaredRoutes(fixture)
        #expect(routes.count > 20, "the router's /v1 routes were not found")
        for route in routes {
            let roles = try #require(route.roles, "\(route.route) declares no roles")
            #expect(!roles.isEmpty, "\(route.route) admits no role")
            #expect(roles.contains(.admin), "\(route.route) refuses admin keys")
        }
    }

    @Test func theClientSecretRoutesAreServedAndRefuseEveryAPIKey() async throws {
        let fixture = try await APIFixture()
        let (router, authorization) = buildAuthorizedRouter(services: fixture.runtime.apiServices)
        let served = Set(router.routes.map { "\($0.method) \($0.path.description)" })
        #expect(authorization.clientSecretRoutes.isSubset(of: served))
        for route in authorization.clientSecretRoutes {
            #expect(authorization.roles(method: .post, path: String(route.dropFirst("POST ".count))) == nil, "\(route) admits API keys")
        }
        try await fixture.live { client in
            for key in [fixture.adminA, fixture.readonlyA, fixture.runnerA] {
                let response = try await client.send(.post, "/v1/capture-sessions/cs_missing/card", key: key, json: #"{"method": "keyed"}"#)
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test func theRoleRulesOfTheRouterTable() async throws {
        let fixture = try await APIFixture()
        let (_, table) = buildAuthorizedRouter(services: fixture.runtime.apiServices)
        func allows(_ role: APIKeyRole, _ method: HTTPRequest.Method, _ path: String) -> Bool {
            table.roles(method: method, path: path)?.contains(role) == true
        }
        #expect(allows(.readonly, .get, "/v1/secure-cards"))
        #expect(!allows(.readonly, .post, "/v1/secure-cards"))
        #expect(!allows(.readonly, .delete, "/v1/secure-cards/{merchantReference}"))
        #expect(!allows(.readonly, .get, "/v1/audit-events"))
        #expect(allows(.runner, .post, "/v1/charge-runs"))
        #expect(allows(.runner, .get, "/v1/charge-runs/{id}"))
        #expect(!allows(.runner, .get, "/v1/secure-cards"))
        #expect(!allows(.runner, .post, "/v1/secure-cards"))
        #expect(allows(.admin, .delete, "/v1/secure-cards/{merchantReference}"))
    }

    @Test func readonlyKeysMayOnlyReadAndNeverTheAuditTrail() async throws {
        let fixture = try await APIFixture()
        let routes = Self.declaredRoutes(fixture)
        let admitted = Set(routes.filter { $0.roles?.contains(.readonly) == true }.map(\.route))
        #expect(admitted == Self.readonlyRoutes)
        for route in routes where route.roles?.contains(.readonly) == true {
            #expect(route.method == .get, "\(route.route) is a write open to readonly keys")
        }
    }

    @Test func runnerKeysMayOnlyStartAndFollowChargeRuns() async throws {
        let fixture = try await APIFixture()
        let admitted = Set(Self.declaredRoutes(fixture).filter { $0.roles?.contains(.runner) == true }.map(\.route))
        #expect(admitted == Self.runnerRoutes)
    }

    /// Calls every route of the router with a key of `role`: refused with 403 and the permission
    /// error exactly where the route does not admit the role.
    @Test(arguments: [APIKeyRole.readonly, .runner, .admin])
    func aKeyIsRefusedExactlyWhereItsRoleIsNotAdmitted(role: APIKeyRole) async throws {
        let fixture = try await APIFixture()
        let key = try await fixture.runtime.merchants.create(name: "merchant-c", role: role, settings: .init(), actor: "test").apiKey.bearer
        let routes = Self.declaredRoutes(fixture)
        let expectedAdmitted: Set<String> =
            switch role {
            case .admin: Set(routes.map(\.route))
            case .readonly: Self.readonlyRoutes
            case .runner: Self.runnerRoutes
            }
        try await fixture.live { client in
            for route in routes {
                // Parameters name objects that do not exist: an admitted call gets a 404 or a
                // validation error, never a 403.
                let uri = route.path.split(separator: "/").map { $0.hasPrefix("{") ? "missing" : String($0) }.joined(separator: "/")
                let body = route.method == .get || route.method == .delete ? nil : #"{"unknownField": true}"#
                let response = try await client.send(route.method, "/" + uri, key: key, json: body)
                if expectedAdmitted.contains(route.route) {
                    #expect(response.status != .forbidden, "\(route.route) refused a \(role) key")
                } else {
                    #expect(response.status == .forbidden, "\(route.route) admitted a \(role) key")
                    #expect(response.error["type"] as? String == "permission_error", "\(route.route)")
                }
            }
        }
    }
}
