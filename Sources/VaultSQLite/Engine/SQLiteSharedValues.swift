import Synchronization

/// Values that code above the engine shares between the connections of one database, one per
/// type (the store's audit key slot), made the first time they are asked for.
public final class SQLiteSharedValues: Sendable {
    private let values = Mutex<[ObjectIdentifier: any AnyObject & Sendable]>([:])

    /// An empty set.
    public init() {}

    /// The value of type `T`, made by `make` the first time.
    public func value<T: AnyObject & Sendable>(_ make: () -> T) -> T {
        values.withLock { values in
            let key = ObjectIdentifier(T.self)
            if let existing = values[key] as? T { return existing }
            let value = make()
            values[key] = value
            return value
        }
    }
}
