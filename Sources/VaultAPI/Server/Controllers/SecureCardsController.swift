import Foundation
import Hummingbird
import Vault

/// The secure-card routes of the API.
struct SecureCardsController {
    let cards: SecureCardService
    /// Seals the list's cursors.
    let cursorKeys: ListCursorKeys
    /// Bounds each merchant's concurrent `q` searches.
    let searchSlots: MerchantSearchSlots

    func addRoutes(to api: APIRoutes) {
        let admin = api.adminOnly
        // Card metadata (masked number, expiry, holder): readable by `readonly` keys, every read audited.
        let readers = api.admitting(.admin, .readonly)
        admin.post("secure-cards") { request, context in
            let registration = try await JSONCoding.decode(SecureCardRegistrationRequest.self, from: request).registration
            let card = try await cards.register(
                registration, merchant: context.merchant, actor: context.identity.actor, definitions: context.identity.customFields)
            return try JSONCoding.response(SecureCardResponse(card, description: "Secure Card Saved"), status: .created)
        }
        readers.get("secure-cards") { request, context in
            let cursors = try await cursorKeys.cursors(merchantID: context.merchant.id, list: "secure-cards")
            let page = try PageRequest(query: request.uri, cursors: cursors)
            let parameters = request.uri.queryParameters
            var query = SecureCardQuery(limit: page.limit + 1)
            query.text = parameters["q"].map(String.init)
            query.cardReference = parameters["cardReference"].map(String.init)
            query.holderName = try Self.holderName(parameters["holderName"].map(String.init))
            query.includeDeleted = try Self.flag(parameters["includeDeleted"].map(String.init), name: "includeDeleted")
            query.afterSequence = try page.afterSequence
            let list = { try await cards.list(merchant: context.merchant, query: query, readBy: context.identity.actor) }
            let found = query.text == nil ? try await list() : try await searchSlots.run(merchantID: context.merchant.id, list)
            let items = found.map { SecureCardResponse($0, description: nil) }
            return try JSONCoding.response(Page(fetched: items, limit: page.limit) { try cursors.cursor(after: String($0.sequence)) })
        }
        readers.get("secure-cards/:merchantReference") { _, context in
            let reference = try context.parameters.require("merchantReference")
            let card: SecureCard
            if reference.hasPrefix(MerchantReference.tokenPrefix) {
                // A token is the card it names: no reference may take its shape, and one stored before
                // that rule never shadows the token's own card.
                do {
                    card = try await cards.retrieve(reference: reference, merchant: context.merchant, readBy: context.identity.actor)
                } catch SecureCardError.notFound {
                    card = try await cards.retrieve(merchantReference: reference, merchant: context.merchant, readBy: context.identity.actor)
                }
            } else {
                card = try await cards.retrieve(merchantReference: reference, merchant: context.merchant, readBy: context.identity.actor)
            }
            return try JSONCoding.response(SecureCardResponse(card, description: "Secure Card Retrieved"))
        }
        admin.patch("secure-cards/:merchantReference") { request, context in
            let reference = try context.parameters.require("merchantReference")
            let update = try await JSONCoding.decode(SecureCardUpdateRequest.self, from: request).update
            let card = try await cards.update(merchantReference: reference, with: update, merchant: context.merchant, actor: context.identity.actor)
            return try JSONCoding.response(SecureCardResponse(card, description: "Secure Card Updated"))
        }
        admin.delete("secure-cards/:merchantReference") { request, context in
            let reference = try context.parameters.require("merchantReference")
            let parameters = request.uri.queryParameters
            let cancelSchedules = try Self.flag(parameters["cancelSchedules"].map(String.init), name: "cancelSchedules")
            let purge = try Self.flag(parameters["purge"].map(String.init), name: "purge")
            let (card, cancelled) = try await cards.delete(
                merchantReference: reference, cancelSchedules: cancelSchedules, purge: purge, merchant: context.merchant,
                actor: context.identity.actor)
            var response = SecureCardResponse(card, description: "Secure Card Deleted")
            response.deletedReference = card.reference
            response.secureCardReference = nil
            response.cancelledSchedules = cancelled
            return try JSONCoding.response(response)
        }
    }

    /// `holderName`: 1-200 characters with at least one letter or digit (the tokens searched for).
    /// Characters are counted as JSON Schema's `maxLength` counts them, in code points (Unicode scalars):
    /// `String.count` counts grapheme clusters, and a name with combining marks passed under the limit.
    static func holderName(_ value: String?) throws -> String? {
        guard let value else { return nil }
        guard value.unicodeScalars.count <= 200, !HolderNameIndex.tokens(of: value).isEmpty else {
            throw APIError.invalid("holderName must be 1-200 characters with at least one letter or digit.", code: "invalid_value", param: "holderName")
        }
        return value
    }

    /// A boolean query parameter: absent or `false`, or `true`. Anything else (an empty value, `1`)
    /// is a 422, so a malformed `purge` or `cancelSchedules` never destroys or cancels anything.
    static func flag(_ value: String?, name: String) throws -> Bool {
        switch value {
        case nil, "false": return false
        case "true": return true
        default: throw APIError.invalid("\(name) must be true or false.", code: "invalid_value", param: name)
        }
    }
}

/// A secure card in JSON: the fields the vault stores and returns.
struct SecureCardResponse: Encodable {
    var description: String?
    @ExplicitNull var secureCardReference: String?
    var deletedReference: String?
    var merchantReference: String
    var status: String
    var cardType: String
    var bin: String
    var last4: String
    var maskedNumber: String
    var expiryDate: String
    @ExplicitNull var holderName: String?
    var entryMode: String
    var fingerprint: String
    var keyVersion: Int
    @ExplicitNull var customer: Customer?
    var customFields: [CustomField]
    @ExplicitNull var verification: CardVerificationRecord?
    var cancelledSchedules: [String]?
    var createdAt: Date
    var updatedAt: Date
    @ExplicitNull var deletedAt: Date?
    @ExplicitNull var purgedAt: Date?
    let sequence: Int64

    init(_ card: SecureCard, description: String?) {
        sequence = card.sequence
        self.description = description
        secureCardReference = card.reference
        merchantReference = card.merchantReference
        status = card.status.rawValue
        cardType = card.cardType.rawValue
        bin = card.bin
        last4 = card.last4
        maskedNumber = card.maskedNumber
        expiryDate = card.expiry.mmyy
        holderName = card.holderName
        entryMode = card.entryMode.rawValue
        fingerprint = card.fingerprint
        keyVersion = card.keyVersion
        customer = card.customer
        customFields = card.customFields
        verification = card.verification
        createdAt = card.createdAt
        updatedAt = card.updatedAt
        deletedAt = card.deletedAt
        purgedAt = card.purgedAt
    }

    private enum CodingKeys: String, CodingKey {
        case description, secureCardReference, deletedReference, merchantReference, status, cardType, bin, last4, maskedNumber, expiryDate
        case holderName, entryMode, fingerprint, keyVersion, customer, customFields, verification, cancelledSchedules, createdAt, updatedAt
        case deletedAt, purgedAt
    }
}
