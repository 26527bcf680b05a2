/// The rule for an API key's label: 1-100 characters, no control characters and no card number
/// (it is shown in listings and audit events).
public enum APIKeyLabel {
    /// The longest label, in characters.
    public static let maximumLength = 100

    /// - Throws: `MerchantSettingError` (setting `label`) naming what is wrong, never echoing a card number.
    public static func check(_ label: String) throws {
        guard !label.isEmpty, label.count <= maximumLength else {
            throw MerchantSettingError(setting: "label", message: "must be 1-\(maximumLength) characters")
        }
        guard !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw MerchantSettingError(setting: "label", message: "must not contain control characters")
        }
        guard !CardNumberShape.contains(label) else {
            throw MerchantSettingError(setting: "label", message: "must not contain a card number")
        }
    }
}
