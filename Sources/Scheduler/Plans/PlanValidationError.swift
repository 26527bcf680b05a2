/// Why a plan was refused: the API field at fault and the rule it broke (a 422 in the API).
///
/// `rule` is a stable machine code:
/// - `required`: a field the plan type needs is missing;
/// - `not_allowed`: a field that does not apply to the type or contradicts `endType`;
/// - `unknown_value`: `type` or `endType` is not one of the known names;
/// - `invalid_format`: a date that is not a real `yyyy-MM-dd` date;
/// - `out_of_range`: `day`, `month`, `hour`, `minute`, `endCount` or the number of steps outside its range;
/// - `in_past`: `startDate` or a date before today in the schedule's zone;
/// - `before_start_date`: `endDate` or a date before `startDate`;
/// - `duplicate`: a date listed twice in `dates`;
/// - `empty`: `dates` given with no date;
/// - `unknown_time_zone`: `timeZone` is not an IANA zone identifier;
/// - `no_steps`: a date-ended plan with no step on or before `endDate`.
public struct PlanValidationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The request field, as the API names it (`day`, `endDate`, `dates[2]`, ...).
    public let field: String
    /// The broken rule's machine code (see the type's documentation).
    public let rule: String
    /// A sentence for people, naming the field and the allowed values.
    public let message: String

    /// An error for `field` breaking `rule`, explained by `message`.
    public init(field: String, rule: String, message: String) {
        self.field = field
        self.rule = rule
        self.message = message
    }

    /// `field: message (rule)`.
    public var description: String { "\(field): \(message) (\(rule))" }
}

extension PlanValidationError {
    /// A `required` error: the plan type needs `field`.
    static func required(_ field: String, _ message: String) -> Self {
        .init(field: field, rule: "required", message: message)
    }

    /// A `not_allowed` error: `field` does not apply to the plan type or contradicts `endType`.
    static func notAllowed(_ field: String, _ message: String) -> Self {
        .init(field: field, rule: "not_allowed", message: message)
    }

    /// An `out_of_range` error: `field` is outside its range.
    static func outOfRange(_ field: String, _ message: String) -> Self {
        .init(field: field, rule: "out_of_range", message: message)
    }
}
