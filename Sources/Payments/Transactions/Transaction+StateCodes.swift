extension Transaction {
    /// The numeric `state`/`subState` codes of this transaction, reported beside its `status`.
    ///
    /// States: 100 created, 200 checked, 400 executed, 500 cancelled. Sub-states by what the
    /// transaction is and where it stands:
    ///
    /// | status | sale, capture | authorize | verify | void | refund, credit |
    /// | --- | --- | --- | --- | --- | --- |
    /// | pending | 100/101 | 100/101 | 100/101 | 500/503 | 500/505 |
    /// | in_doubt, needs_review | 200/201 | 200/201 | 200/201 | 500/503 | 400/403 |
    /// | error | 200/202 | 200/202 | 200/202 | 200/202 | 200/202 |
    /// | approved | 400/411 | 400/401 | 200/201 | 500/502 | 500/504 |
    /// | declined, soft | 400/402 | 400/402 | 200/202 | 400/412 | 400/412 |
    /// | declined, hard | 400/412 | 400/412 | 200/202 | 400/412 | 400/412 |
    /// | captured | - | 400/411 | - | - | - |
    /// | partially_refunded | 400/404 | 400/404 | - | - | - |
    /// | refunded | 500/504 | 500/504 | - | - | - |
    /// | voided | 500/502 | 500/502 | - | - | - |
    public var stateCodes: (state: Int, subState: Int) {
        Self.stateCodes(type: type, status: status, declineCategory: declineCategory)
    }

    /// The codes for a type, a status and (for declines) the decline's category, `hard` or `soft`.
    public static func stateCodes(type: TransactionType, status: TransactionStatus, declineCategory: String?) -> (state: Int, subState: Int) {
        switch (status, type) {
        case (.pending, .void), (.inDoubt, .void), (.needsReview, .void): (500, 503)
        case (.pending, .refund), (.pending, .credit): (500, 505)
        case (.inDoubt, .refund), (.inDoubt, .credit), (.needsReview, .refund), (.needsReview, .credit): (400, 403)
        case (.pending, _): (100, 101)
        case (.inDoubt, _), (.needsReview, _): (200, 201)
        case (.error, _): (200, 202)
        case (.approved, .void): (500, 502)
        case (.approved, .refund), (.approved, .credit): (500, 504)
        case (.approved, .authorize): (400, 401)
        case (.approved, .verify): (200, 201)
        case (.approved, _), (.captured, _): (400, 411)
        case (.declined, .verify): (200, 202)
        case (.declined, .sale), (.declined, .authorize), (.declined, .capture):
            declineCategory == "soft" ? (400, 402) : (400, 412)
        case (.declined, _): (400, 412)
        case (.partiallyRefunded, _): (400, 404)
        case (.refunded, _): (500, 504)
        case (.voided, _): (500, 502)
        }
    }
}
