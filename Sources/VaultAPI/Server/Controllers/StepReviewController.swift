import Foundation
import Hummingbird
public import Scheduler
import Vault

/// `POST /v1/schedules/{id}/steps/{stepId}/resolve`: an operator resolves a step in review
/// (`needs_review`) as charged (with the gateway's transaction id) or not charged.
struct StepReviewController {
    let schedules: ScheduleService
    let reviews: StepReviewService

    func addRoutes(to api: APIRoutes) {
        api.adminOnly.post("schedules/:id/steps/:stepId/resolve") { request, context in
            let body = try await JSONCoding.decode(StepResolutionRequest.self, from: request)
            let scheduleID = try context.parameters.require("id")
            _ = try await reviews.resolve(
                scheduleID: scheduleID, stepID: try context.parameters.require("stepId"), body.resolution, merchant: context.merchant,
                actor: context.identity.actor)
            let view = try await schedules.get(id: scheduleID, merchant: context.merchant)
            return try JSONCoding.response(ScheduleResponse(view))
        }
    }
}

extension StepReviewError: APIErrorConvertible {
    /// 404 for a missing schedule or step, 409 for a step not in review.
    public var apiError: APIError {
        switch self {
        case .notFound(let what):
            return .notFound(what, param: what == "step" ? "stepId" : "id")
        case .wrongStatus(let current):
            return .conflict("Only a step in review (needs_review) can be resolved; this one is \(current.rawValue).",
                             code: "step_not_in_review", param: "stepId")
        }
    }
}
