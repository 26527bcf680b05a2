import Vault

/// The card and schedule forms of the console and the least operator role each needs, in one
/// place: a page shows a form only to a role that has its permission, and its route refuses the
/// post of any other (403, audited) after the CSRF check.
///
/// The rule behind the table: the console never lets an operator do what the API refuses to a key of
/// the same role name. A `readonly` key only reads, so a `readonly` operator only reads. The API
/// keeps every write to `admin` keys; `support` is the console's own role between the two (one named
/// person, audited by name, doing a customer's everyday requests: update a card's details, set up,
/// change, pause, resume or cancel a schedule, skip a step, as they already refund and void), and
/// what destroys card data (deleting or purging a card) stays with `admin`.
enum ConsoleAction: String, CaseIterable, Sendable {
    /// A card's customer details and custom field values (`PATCH /v1/secure-cards/{ref}`).
    case updateCard = "update"
    /// A card deleted, its schedules cancelled when asked (`DELETE /v1/secure-cards/{ref}`).
    case deleteCard = "delete"
    /// A card's data destroyed for good (`DELETE /v1/secure-cards/{ref}?purge=true`).
    case purgeCard = "purge"
    /// A schedule previewed and created in the plan builder (`POST /v1/schedules`, `/preview`).
    case createSchedule = "create"
    /// The customer's confirmation recorded (`POST /v1/schedules/{id}/confirm`).
    case confirmSchedule = "confirm"
    /// A new amount and/or another card (`PATCH /v1/schedules/{id}`).
    case changeSchedule = "change"
    /// `POST /v1/schedules/{id}/pause`.
    case pauseSchedule = "pause"
    /// `POST /v1/schedules/{id}/resume`.
    case resumeSchedule = "resume"
    /// `POST /v1/schedules/{id}/cancel`.
    case cancelSchedule = "cancel"
    /// `POST /v1/schedules/{id}/steps/{stepId}/skip`.
    case skipStep = "skip"

    /// The permission the action needs (``OperatorRole/allows(_:)``).
    var permission: OperatorRole.Permission {
        switch self {
        case .updateCard, .createSchedule, .confirmSchedule, .changeSchedule, .pauseSchedule, .resumeSchedule, .cancelSchedule, .skipStep: .support
        case .deleteCard, .purgeCard: .administer
        }
    }

    /// The card page's actions, by the last segment of their path.
    static let cardActions: [ConsoleAction] = [.updateCard, .deleteCard, .purgeCard]
    /// The schedule page's lifecycle actions (each behind a confirmation), by the last segment of their path.
    static let lifecycle: [ConsoleAction] = [.confirmSchedule, .pauseSchedule, .resumeSchedule, .cancelSchedule]
}

extension ConsoleSignedIn {
    /// Whether the operator's role may take `action`.
    func may(_ action: ConsoleAction) -> Bool { account.role.allows(action.permission) }
}
