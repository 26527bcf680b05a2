import Foundation
import PropertyBased
import Payments
@testable import Scheduler
import Testing
@testable import Vault
@testable import VaultAPI
@testable import VaultApp

/// Hand-written response bodies must be byte for byte what `JSONCoding.encoder` writes: the
/// OpenAPI document, the contract test and every portal read the encoder's form.
@Suite struct HandWrittenJSONTests {
    /// Characters that stress escaping and key order: controls, quotes, backslash, slash, both
    /// cases, digits, accented letters, CJK and an emoji.
    static let alphabet = Array("\u{0}\u{1}\u{8}\u{9}\u{A}\u{C}\u{D}\u{1F}\"\\/ aZz09_-.:é€中😀\u{7F}")
    static let strings = Gen.int(in: 0...(alphabet.count - 1)).array(of: 0...10).map { String($0.map { alphabet[$0] }) }
    static let optionalStrings = zip(Gen.int(in: 0...2), strings).map { kind, text in kind == 0 ? nil : text }
    static let instants = Gen.int(in: -2_000_000_000_000...4_000_000_000_000).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    static let optionalInstants = zip(Gen.bool, instants).map { present, instant in present ? instant : nil }
    static let customers = zip(Gen.bool, optionalStrings, optionalStrings, optionalStrings, optionalStrings, optionalStrings, optionalStrings)
        .map { present, email, mobile, city, region, country, ip in
            present ? Customer(email: email, mobileNumber: mobile, city: city, region: region, country: country, ipAddress: ip) : nil
        }
    static let verifications = zip(Gen.bool, strings, strings, optionalStrings, optionalStrings, optionalStrings, instants)
        .map { present, status, gateway, transaction, avs, cvv, at in
            present ? CardVerificationRecord(status: status, gateway: gateway, transactionId: transaction, avsResult: avs, cvvResult: cvv, verifiedAt: at) : nil
        }
    static let customFields = zip(strings, strings).map { CustomField(name: $0, value: $1) }.array(of: 0...3)
    static let cards = zip(strings, strings, optionalStrings, customers, customFields, verifications, zip(instants, optionalInstants, optionalInstants))
        .map { reference, last4, holder, customer, fields, verification, instants in
            SecureCard(
                reference: reference, merchantID: "m_1", merchantReference: last4 + reference, status: fields.isEmpty ? .active : .deleted,
                cardType: .visa, bin: "424242", last4: last4, maskedNumber: "424242******" + last4, expiry: try! CardExpiry(month: 12, year: 2030),
                entryMode: .keyed, fingerprint: reference + "f", keyVersion: fields.count + 1, holderName: holder, customer: customer,
                customFields: fields, verification: verification, createdAt: instants.0, updatedAt: instants.0, deletedAt: instants.1,
                purgedAt: instants.2, sequence: 7)
        }

    static func encoderBytes(_ value: some Encodable) -> [UInt8]? {
        (try? JSONCoding.encoder.encode(value)).map(Array.init)
    }

    @Test func secureCardResponsesMatchTheEncoder() async {
        await propertyCheck(count: 400, input: Self.cards, Self.optionalStrings, zip(Gen.bool, Self.strings.array(of: 0...3))) { card, description, deletion in
            var response = SecureCardResponse(card, description: description)
            if deletion.0 {
                response.deletedReference = card.reference
                response.secureCardReference = nil
                response.cancelledSchedules = deletion.1
            }
            let expected = Self.encoderBytes(response)
            #expect(response.jsonBytes == expected)
        }
    }

    @Test func pagesOfHandWrittenItemsMatchTheEncoder() async throws {
        await propertyCheck(count: 200, input: Self.cards.array(of: 0...4), Gen.int(in: 1...4)) { cards, limit in
            let page = Page(fetched: cards.map { SecureCardResponse($0, description: nil) }, limit: limit) { "cur_" + ($0.secureCardReference ?? "") }
            #expect(page.jsonBytes == Self.encoderBytes(page))
        }
        let empty = Page(fetched: [SecureCardResponse](), limit: 20) { _ in "" }
        #expect(String(decoding: empty.jsonBytes, as: UTF8.self) == #"{"data":[],"nextCursor":null}"#)
    }

    @Test func transactionResponsesMatchTheEncoder() async throws {
        let base = TransactionResponse(
            Transaction(id: "txn_1", merchantID: "m_1", type: .sale, amount: 100, currency: try Currency(code: "USD"), gateway: "sandbox",
                        now: Date(timeIntervalSince1970: 0)),
            policy: ReversalPolicy(window: 3600, partialVoid: false), now: Date(timeIntervalSince1970: 0))
        let texts = zip(Self.strings, Self.strings, Self.strings, Self.strings, Self.strings)
        let optionals = zip(Self.optionalStrings, Self.optionalStrings, Self.optionalStrings, Self.optionalStrings, Self.optionalStrings, Self.optionalStrings, Self.optionalStrings)
        let gateways = zip(Self.strings, Self.optionalStrings, Self.optionalStrings, Self.optionalStrings, Self.optionalStrings, Self.optionalStrings, Self.optionalStrings)
        let numbers = zip(Gen.int(in: -5...99_999_999), Gen.int(in: 0...99_999_999), Gen.int(in: 0...99_999_999), Gen.int(in: 0...99_999_999), Gen.int(in: 0...99_999_999), Gen.int(in: -3...20), Self.optionalInts)
        let others = zip(Self.optionalStrings, Self.optionalStrings, zip(Gen.bool, Self.strings, Self.strings), zip(Gen.bool, Self.strings, Self.strings, Self.optionalStrings), zip(Self.instants, Self.instants, Self.optionalInstants))
        await propertyCheck(count: 300, input: texts, optionals, gateways, numbers, others) { texts, optionals, gateway, numbers, others in
            var response = base
            (response.id, response.type, response.status, response.currency, response.reverseMode) = texts
            (response.secureCardReference, response.merchantReference, response.cardType, response.maskedNumber, response.scheduleId,
             response.stepId, response.parentId) = optionals
            response.gateway = TransactionResponse.Gateway(
                name: gateway.0, transactionId: gateway.1, authCode: gateway.2, responseCode: gateway.3, responseText: gateway.4,
                avsResult: gateway.5, cvvResult: gateway.6)
            (response.amount, response.capturedAmount, response.refundedAmount, response.voidedAmount, response.refundableAmount) =
                (Int64(numbers.0), Int64(numbers.1), Int64(numbers.2), Int64(numbers.3), Int64(numbers.4))
            (response.state, response.subState, response.attempt) = (numbers.5, numbers.5 + 1, numbers.6)
            (response.description, response.errorCode) = (others.0, others.1)
            response.decline = others.2.0 ? TransactionResponse.Decline(code: others.2.1, category: others.2.2) : nil
            response.storedCredential = others.3.0
                ? TransactionResponse.StoredCredential(type: others.3.1, initiatedBy: others.3.2, networkTransactionId: others.3.3) : nil
            (response.createdAt, response.updatedAt, response.voidableUntil) = others.4
            #expect(response.jsonBytes == Self.encoderBytes(response))
        }
    }

    @Test func aMinimalCardIsExact() throws {
        let card = SecureCard(
            reference: "sc_1", merchantID: "m_1", merchantReference: "r/1", status: .active, cardType: .visa, bin: "424242", last4: "4242",
            maskedNumber: "424242******4242", expiry: try CardExpiry(month: 1, year: 2031), entryMode: .keyed, fingerprint: "ab", keyVersion: 1,
            holderName: nil, customer: nil, customFields: [], verification: nil, createdAt: Date(timeIntervalSince1970: 0),
            updatedAt: Date(timeIntervalSince1970: 1.5), deletedAt: nil, purgedAt: nil, sequence: 1)
        let text = String(decoding: SecureCardResponse(card, description: nil).jsonBytes, as: UTF8.self)
        #expect(
            text == #"{"bin":"424242","cardType":"visa","createdAt":"1970-01-01T00:00:00.000Z","customFields":[],"customer":null,"#
                + #""deletedAt":null,"entryMode":"keyed","expiryDate":"0131","fingerprint":"ab","holderName":null,"keyVersion":1,"#
                + #""last4":"4242","maskedNumber":"424242******4242","merchantReference":"r/1","purgedAt":null,"secureCardReference":"sc_1","#
                + #""status":"active","updatedAt":"1970-01-01T00:00:01.500Z","verification":null}"#)
    }

    static let optionalInts = zip(Gen.bool, Gen.int(in: -5...5_000)).map { present, number in present ? number : nil }
    static let steps = zip(Self.optionalStrings, Gen.int(in: 0...400), Self.strings, Self.instants, Gen.int(in: 0...9_999_999), Self.strings, Gen.int(in: 0...4))
        .map { id, sequence, date, dueAt, amount, status, attempts in
            var step = StepResponse(
                ScheduleStep(
                    id: id ?? "", scheduleID: "sch_1", sequence: sequence, date: CivilDate(year: 2027, month: 1, day: 31)!, dueAt: dueAt,
                    amount: Int64(amount), currency: try! Currency(code: "EUR"), status: .scheduled, attempts: attempts, nextAttemptAt: nil))
            step.date = date
            step.status = status
            return step
        }

    static func schedule() -> ScheduleResponse {
        let schedule = Schedule(
            id: "sch_1", merchantID: "m_1", secureCardReference: "sc_1", status: .active, plan: PlanTerms(type: "monthly"), amount: 1999,
            currency: try! Currency(code: "USD"), description: nil, externalID: nil, receiptEmail: nil, receiptPhone: nil, materializedThrough: nil,
            createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0), confirmedAt: nil, expiresAt: nil, pausedAt: nil,
            sequence: 1)
        return ScheduleResponse(ScheduleView(schedule: schedule, steps: [], warnings: []))
    }

    @Test func scheduleResponsesMatchTheEncoder() async {
        let texts = zip(Self.optionalStrings, Self.optionalStrings, Self.optionalStrings, Self.optionalStrings, Self.optionalStrings, Self.optionalStrings, Self.optionalStrings)
        let numbers = zip(Self.optionalInts, Self.optionalInts, Self.optionalInts, Self.optionalInts, Self.optionalInts, Gen.int(in: -99_999...99_999_999))
        let others = zip(Self.optionalStrings, Self.optionalStrings, Self.optionalStrings, Self.strings.array(of: 0...3), zip(Gen.bool, Self.strings.array(of: 0...3)), zip(Self.optionalInstants, Self.optionalInstants, Self.instants, Self.instants))
        let stepLists = zip(Gen.bool, Self.steps.array(of: 0...3)).map { present, steps in present ? steps : nil }
        await propertyCheck(count: 300, input: texts, numbers, others, stepLists) { texts, numbers, others, steps in
            var response = Self.schedule()
            (response.description, response.externalId, response.receiptEmail, response.receiptPhone, response.type, response.startDate, response.endType) = texts
            (response.endCount, response.month, response.day, response.hour, response.minute) = (numbers.0, numbers.1, numbers.2, numbers.3, numbers.4)
            response.amount = Int64(numbers.5)
            (response.endDate, response.timeZone, response.materializedThrough) = (others.0, others.1, others.2)
            response.warnings = others.3
            response.dates = others.4.0 ? others.4.1 : nil
            (response.confirmedAt, response.expiresAt, response.createdAt, response.updatedAt) = others.5
            response.steps = steps
            let expected = Self.encoderBytes(response)
            #expect(response.jsonBytes == expected)
        }
    }
}
