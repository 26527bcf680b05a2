/// The cardholder's personal details stored with a secure card (all optional).
public struct Customer: Codable, Sendable, Equatable {
    /// E-mail address, e.g. `jane@example.com`.
    public var email: String?
    /// Mobile number in E.164-ish form, e.g. `+44 7700 900123`.
    public var mobileNumber: String?
    /// City, at most 100 characters.
    public var city: String?
    /// Region, state or province, at most 100 characters.
    public var region: String?
    /// ISO 3166-1 alpha-2 country code, upper case, e.g. `GB`.
    public var country: String?
    /// IPv4 or IPv6 address the customer used.
    public var ipAddress: String?

    /// Longest city or region accepted, in characters.
    public static let maximumPlaceLength = 100

    /// Creates customer details; nothing is validated until ``validate()``.
    public init(email: String? = nil, mobileNumber: String? = nil, city: String? = nil, region: String? = nil,
                country: String? = nil, ipAddress: String? = nil) {
        self.email = email
        self.mobileNumber = mobileNumber
        self.city = city
        self.region = region
        self.country = country
        self.ipAddress = ipAddress
    }

    /// A copy with every field trimmed, blank fields set to `nil`, and the country upper-cased,
    /// so `" gb "` becomes `GB`. ``validate()`` itself accepts only the normalised forms.
    public func normalized() -> Customer {
        func clean(_ value: String?) -> String? {
            guard let value else { return nil }
            let trimmed = value.trimmedWhitespace
            return trimmed.isEmpty ? nil : trimmed
        }
        return Customer(email: clean(email), mobileNumber: clean(mobileNumber), city: clean(city),
                        region: clean(region), country: clean(country)?.uppercased(),
                        ipAddress: clean(ipAddress))
    }

    /// Validates every present field, in declaration order.
    ///
    /// - `email`: `local@domain`, ASCII, at most 254 characters, local part at most 64 of
    ///   letters, digits and ``!#$%&'*+/=?^_`{|}~.-`` (no leading, trailing or double dot), domain
    ///   of at least two dot-separated labels (letters, digits, inner hyphens; IDNs as punycode).
    /// - `mobileNumber`: optional `+`, then 7-15 digits (not starting with 0 after `+`);
    ///   spaces, dashes, dots and parentheses between digits are allowed.
    /// - `city`, `region`: 1-100 characters, no control characters.
    /// - `country`: an assigned ISO 3166-1 alpha-2 code, upper case.
    /// - `ipAddress`: IPv4 dotted quad or IPv6 text form, as `inet_pton` accepts them.
    /// - No field may hold a card number (``CardNumberShape``): `card_number_not_allowed`.
    /// - Throws: ``CardDataError`` on `customer.<field>`: `invalid_format`, `too_long` or
    ///   `card_number_not_allowed`.
    public func validate() throws(CardDataError) {
        try CardNumberShape.refuse(email, field: "customer.email")
        try CardNumberShape.refuse(mobileNumber, field: "customer.mobileNumber")
        try CardNumberShape.refuse(city, field: "customer.city")
        try CardNumberShape.refuse(region, field: "customer.region")
        if let email { try CustomerFieldRules.validateEmail(email, field: "customer.email") }
        if let mobileNumber { try CustomerFieldRules.validatePhone(mobileNumber, field: "customer.mobileNumber") }
        if let city { try CustomerFieldRules.validatePlace(city, field: "customer.city") }
        if let region { try CustomerFieldRules.validatePlace(region, field: "customer.region") }
        if let country { try CustomerFieldRules.validateCountry(country, field: "customer.country") }
        if let ipAddress { try CustomerFieldRules.validateIPAddress(ipAddress, field: "customer.ipAddress") }
    }
}
