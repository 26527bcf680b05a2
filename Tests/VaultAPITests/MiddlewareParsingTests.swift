import Hummingbird
import Testing
@testable import VaultAPI
@testable import VaultApp

@Suite struct AccessLogTests {
    @Test(arguments: [
        (Duration.zero, "0.00"), (.microseconds(9_999), "9.99"), (.milliseconds(12) + .microseconds(70), "12.07"),
        (.milliseconds(5), "5.00"), (.seconds(3) + .microseconds(456_789), "3456.78"), (.nanoseconds(10_000), "0.01"),
    ])
    func durationsAreWrittenInMillisecondsWithTwoDecimals(elapsed: Duration, expected: String) {
        #expect(AccessLog.milliseconds(elapsed) == expected)
    }
}

@Suite struct BearerHeaderTests {
    @Test(arguments: [
        ("Bearer vk_a", "vk_a"), ("bearer vk_a", "vk_a"), ("BEARER vk_a", "vk_a"), ("BeArEr  vk_a \t", "vk_a"), ("Bearer \tvk_a", "vk_a"),
    ])
    func theTokenIsReadWhateverTheSchemesCase(header: String, token: String) {
        #expect(AuthenticationMiddleware.bearerToken(in: header) == token)
    }

    @Test(arguments: ["", "Bearer", "Bearer ", "Bearer   \t", "Basic dXNlcjpwYXNz", "Bearer\tvk_a", "Bearervk_a", "Bearer\u{0}vk_a", "Bearez vk_a"])
    func otherSchemesAndEmptyTokensAreRefused(header: String) {
        #expect(AuthenticationMiddleware.bearerToken(in: header) == nil)
    }
}

@Suite struct ContentTypeTests {
    @Test(arguments: ["application/json", "application/json; charset=utf-8", "Application/JSON", " application/json ;charset=utf-8", "application/merge-patch+json", "application/vnd.api+JSON; charset=utf-8"])
    func jsonMediaTypesAreAccepted(contentType: String) {
        #expect(RequestBodyMiddleware<BasicRequestContext>.isJSON(contentType: contentType))
    }

    @Test(arguments: ["", "text/plain", "application/xml", "application/jsonx", "text/json", "application/x-www-form-urlencoded", "json", "application/+json", ";application/json", "application/jsön"])
    func otherMediaTypesAreRefused(contentType: String) {
        #expect(!RequestBodyMiddleware<BasicRequestContext>.isJSON(contentType: contentType))
    }
}
