/// Amounts in requests: whole numbers of minor units, within one bound shared by one-off
/// transactions and schedule steps.
public enum MinorUnits {
    /// Largest amount of one charge, in minor units.
    public static let maximum: Int64 = 99_999_999_999
}
