/// The `customer` object of a card update: each field given replaces the stored one, each field
/// sent as `null` clears that one field, and absent fields stay as they are. A blank field is
/// refused (a 422 naming it) rather than read as "clear", so a form that posts empty inputs cannot
/// wipe details by accident; `"customer": null` clears all of them.
public struct CustomerUpdate: Sendable, Equatable {
    /// E-mail address.
    public var email: PatchField<String>
    /// Mobile number.
    public var mobileNumber: PatchField<String>
    /// City.
    public var city: PatchField<String>
    /// Region, state or province.
    public var region: PatchField<String>
    /// ISO 3166-1 alpha-2 country code.
    public var country: PatchField<String>
    /// IPv4 or IPv6 address.
    public var ipAddress: PatchField<String>

    /// Creates an update; every field defaults to absent (unchanged).
    public init(email: PatchField<String> = .absent, mobileNumber: PatchField<String> = .absent,
                city: PatchField<String> = .absent, region: PatchField<String> = .absent,
                country: PatchField<String> = .absent, ipAddress: PatchField<String> = .absent) {
        self.email = email
        self.mobileNumber = mobileNumber
        self.city = city
        self.region = region
        self.country = country
        self.ipAddress = ipAddress
    }

    /// An update that sets the fields `customer` has and leaves the others as they are.
    public init(setting customer: Customer) {
        func field(_ value: String?) -> PatchField<String> { value.map { .set($0) } ?? .absent }
        self.init(email: field(customer.email), mobileNumber: field(customer.mobileNumber), city: field(customer.city),
                  region: field(customer.region), country: field(customer.country), ipAddress: field(customer.ipAddress))
    }

    /// The stored details after this update, not yet normalised or validated; nil when no field is left.
    public func applied(to current: Customer?) -> Customer? {
        func apply(_ patch: PatchField<String>, _ value: inout String?) {
            switch patch {
            case .absent: break
            case .clear: value = nil
            case .set(let new): value = new
            }
        }
        var result = current ?? Customer()
        apply(email, &result.email)
        apply(mobileNumber, &result.mobileNumber)
        apply(city, &result.city)
        apply(region, &result.region)
        apply(country, &result.country)
        apply(ipAddress, &result.ipAddress)
        return result == Customer() ? nil : result
    }
}
