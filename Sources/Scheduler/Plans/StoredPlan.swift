import Foundation
public import Vault

/// A schedule's plan as the `schedules.stored_plan` column holds it: a versioned JSON document with
/// field names of its own, so that renaming a field of the domain's `PlanTerms` or of the API's request can never change what
/// is stored, nor make stored schedules unreadable.
///
/// The change is made as an expand-and-contract, because servers of an earlier build may share the
/// database during a rolling upgrade and read only `schedules.plan`, with the API request's shape, whose
/// fields are all optional: a plan in a form they do not know would read as an empty plan (no end
/// type: an open-ended schedule taken for one that ends) without any error. So this build writes
/// both columns: `stored_plan` in this form, and `plan` in the form earlier builds read
/// (``legacyText(_:)``, field names frozen here); it reads `stored_plan`, and `plan` only for a row
/// an earlier build wrote (`stored_plan` null). Once no earlier build runs, a later release may stop
/// writing `plan`.
///
/// Version 1 (`"v": 1`) keeps the plan as the schedule agreed it (the request's values, time zone,
/// hour and minute filled in): `kind`, `start`, `endKind`, `endOn`, `endAfter`, `month`, `day`,
/// `hour`, `minute`, `dates`, `zone`; absent values are left out. A document without `v` is the
/// form earlier builds wrote (the request's own JSON) and is still read: a server of an earlier
/// build may write one during a rolling upgrade. A version this build does not know is an error.
public struct StoredPlan: Sendable, Codable, Equatable {
    /// The version of this form.
    public static let currentVersion = 1

    /// The document's version.
    public var version: Int
    /// `PlanTerms.type`.
    public var kind: String?
    /// `PlanTerms.startDate`, `yyyy-MM-dd`.
    public var start: String?
    /// `PlanTerms.endType`.
    public var endKind: String?
    /// `PlanTerms.endDate`, `yyyy-MM-dd`.
    public var endOn: String?
    /// `PlanTerms.endCount`.
    public var endAfter: Int?
    /// `PlanTerms.month`.
    public var month: Int?
    /// `PlanTerms.day`.
    public var day: Int?
    /// `PlanTerms.hour`.
    public var hour: Int?
    /// `PlanTerms.minute`.
    public var minute: Int?
    /// `PlanTerms.dates`, `yyyy-MM-dd` each.
    public var dates: [String]?
    /// `PlanTerms.timeZone`, an IANA zone name.
    public var zone: String?

    enum CodingKeys: String, CodingKey {
        case version = "v", kind, start, endKind, endOn, endAfter, month, day, hour, minute, dates, zone
    }

    /// The stored form of a schedule's plan, in the current version.
    public init(_ plan: PlanTerms) {
        version = Self.currentVersion
        kind = plan.type
        start = plan.startDate
        endKind = plan.endType
        endOn = plan.endDate
        endAfter = plan.endCount
        month = plan.month
        day = plan.day
        hour = plan.hour
        minute = plan.minute
        dates = plan.dates
        zone = plan.timeZone
    }

    /// The schedule's plan.
    public var plan: PlanTerms {
        PlanTerms(
            type: kind, startDate: start, endType: endKind, endDate: endOn, endCount: endAfter, month: month, day: day,
            hour: hour, minute: minute, dates: dates, timeZone: zone)
    }

    /// The column's text: compact JSON with keys sorted by their UTF-8 bytes, absent values left
    /// out, slashes unescaped: byte for byte what `JSONEncoder` (`.sortedKeys`,
    /// `.withoutEscapingSlashes`) writes for this type, since a schedule's binding is a MAC over
    /// this text and rows already stored must keep verifying.
    ///
    /// Written by hand (``StoredPlanWriter``) because the charge runner checks every claimed
    /// schedule's binding, and so re-encodes its plan, before it charges; a differential test
    /// compares it with `JSONEncoder` over generated plans.
    public func storedText() throws -> String {
        StoredPlanWriter.text(self)
    }

    /// The `schedules.plan` value earlier builds read: the request's JSON as they wrote it (sorted
    /// keys, absent fields left out), its field names frozen in this file.
    public static func legacyText(_ plan: PlanTerms) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(LegacyPlan(plan)), as: UTF8.self)
    }

    /// The plan of a `schedules` row: its `stored_plan` column, or, for a row an earlier build wrote,
    /// its `plan` column.
    /// - Throws: `StoredRowError` naming the schedule and the column read.
    public static func plan(of row: some StoredRow) throws -> PlanTerms {
        let id = try row.string("id")
        if let text = try row.optionalString("stored_plan") {
            return try plan(storedText: text, scheduleID: id, column: "stored_plan")
        }
        return try plan(storedText: try row.string("plan"), scheduleID: id, column: "plan")
    }

    /// The text a row's plan is read from and the column holding it (see ``plan(of:)``): batches
    /// decode each distinct text once.
    public static func text(of row: some StoredRow) throws -> (text: String, column: String) {
        if let text = try row.optionalString("stored_plan") { return (text, "stored_plan") }
        return (try row.string("plan"), "plan")
    }

    /// The plan in a `schedules.stored_plan` (or earlier builds' `schedules.plan`) value, of any
    /// version this build reads.
    ///
    /// - Throws: `StoredRowError` naming the schedule and `column` when the text is not such a
    ///   document (a version it does not know is named in the error; the text is not).
    public static func plan(storedText text: String, scheduleID: String, column: String = "stored_plan") throws -> PlanTerms {
        let data = Data(text.utf8)
        let unreadable = { (value: String?) in
            StoredRowError.unreadable(table: "schedules", id: scheduleID, column: column, value: value)
        }
        guard let probe = try? JSONDecoder().decode(VersionProbe.self, from: data) else { throw unreadable(nil) }
        switch probe.version {
        case nil:
            guard let legacy = try? JSONDecoder().decode(LegacyPlan.self, from: data) else { throw unreadable(nil) }
            return legacy.plan
        case currentVersion:
            guard let stored = try? JSONDecoder().decode(StoredPlan.self, from: data) else { throw unreadable(nil) }
            return stored.plan
        case let version?:
            throw unreadable("v=\(version)")
        }
    }

    /// Only the version of a document.
    private struct VersionProbe: Decodable {
        var version: Int?
        enum CodingKeys: String, CodingKey { case version = "v" }
    }

    /// The form earlier builds wrote: the API request's JSON, its field names frozen here so that
    /// a later rename of `PlanTerms`' or the request's fields cannot change how such a row reads.
    private struct LegacyPlan: Codable {
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

        init(_ plan: PlanTerms) {
            type = plan.type
            startDate = plan.startDate
            endType = plan.endType
            endDate = plan.endDate
            endCount = plan.endCount
            month = plan.month
            day = plan.day
            hour = plan.hour
            minute = plan.minute
            dates = plan.dates
            timeZone = plan.timeZone
        }

        var plan: PlanTerms {
            PlanTerms(
                type: type, startDate: startDate, endType: endType, endDate: endDate, endCount: endCount, month: month, day: day,
                hour: hour, minute: minute, dates: dates, timeZone: timeZone)
        }
    }
}
