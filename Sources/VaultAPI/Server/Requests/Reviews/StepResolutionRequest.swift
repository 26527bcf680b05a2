public import Scheduler

/// The body of `POST /v1/schedules/{id}/steps/{stepId}/resolve`:
/// `{"outcome": "charged", "gatewayTransactionId": "..."}` or `{"outcome": "not_charged"}`, with
/// the rules of ``ReviewResolutionRequest`` (a rule broken is its 422 naming the field).
public struct StepResolutionRequest: Decodable, Sendable {
    /// The resolution asked for.
    public var resolution: StepResolution

    /// Creates a request.
    public init(resolution: StepResolution) {
        self.resolution = resolution
    }

    /// Decodes and checks the body as ``ReviewResolutionRequest`` does.
    /// - Throws: ``ReviewResolutionError/invalid(field:rule:message:)``.
    public init(from decoder: any Decoder) throws {
        resolution = try ReviewResolutionRequest(from: decoder).resolution
    }
}
