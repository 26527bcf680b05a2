/// One field of a partial change: absent (leave as is), clear (remove) or a value (replace). The
/// API reads it from a PATCH body: a missing member, `null` or a value.
public enum PatchField<Value: Sendable & Equatable>: Sendable, Equatable {
    /// Not part of the change.
    case absent
    /// Removed (`null` in a PATCH body).
    case clear
    /// A new value.
    case set(Value)
}
