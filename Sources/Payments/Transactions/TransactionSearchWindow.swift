/// A text search (`q`) examines a bounded number of the merchant's transactions per request.
///
/// `q` matches descriptions by substring, which no ordinary index serves: unbounded, one merchant
/// searching a large history for nothing scanned every row it owned on each request (300,000 rows:
/// another merchant's look-up went from about a millisecond to a second). A search therefore looks
/// only at the next `scanLimit` transactions after its cursor, in the page's order; when it has looked
/// at all of them without filling the page, the page ends early and its cursor continues after the
/// last transaction examined, so paging still reaches every match and no request costs more than
/// `scanLimit` rows. The same rule on every engine: the window's end is found on the merchant's
/// sequence index, then the search runs inside it.
public struct TransactionSearchWindow: Sendable, Equatable {
    /// Transactions one search request may examine.
    public var scanLimit: Int

    /// A window of `scanLimit` transactions (at least one).
    public init(scanLimit: Int) {
        self.scanLimit = max(1, scanLimit)
    }
}

/// A page of a text search: what matched, and where the next page starts when the window ended
/// before the page filled.
public struct TransactionSearchPage: Sendable {
    /// The matches, up to the limit asked for (the caller asks one more than it shows, to know there is more).
    public var transactions: [Transaction]
    /// When the window was used up before the page filled, the sequence the next page starts after
    /// (its cursor); nil when the window reached the end of the merchant's transactions or the page filled.
    public var resumeAfter: Int64?
}
