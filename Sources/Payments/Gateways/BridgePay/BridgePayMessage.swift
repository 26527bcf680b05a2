import Vault

/// One BridgeComm request: the `requestHeader` XML document (header fields, then
/// `requestMessage` fields, in a fixed order), base64-encoded into a SOAP 1.1 `ProcessRequest`
/// envelope, as the official SDK builds it (`BeyondPayConnection::processRequest`).
///
/// Values are XML-escaped; empty values are left out (the SDK skips empty fields too).
struct BridgePayMessage: Sendable {
    /// `TransactionID`: our id of this request, echoed back as `TransactionCode`.
    var transactionID: String
    /// `RequestType`: `004`, `012`, `019` or `023`.
    var requestType: String
    /// `RequestDateTime`, `yyyyMMddHHmmss`.
    var requestDateTime: String
    /// `User` and `Password`.
    var credentials: BridgePayCredentials
    /// `requestMessage` fields after `MerchantCode` and `MerchantAccountCode`, in order.
    var fields: [(String, String)]

    /// The `requestHeader` document.
    var xml: String {
        var text = "<requestHeader>"
        func element(_ name: String, _ value: String) {
            guard !value.isEmpty else { return }
            text += "<\(name)>\(Self.escaped(value))</\(name)>"
        }
        element("ClientIdentifier", BridgePayWire.clientIdentifier)
        element("TransactionID", transactionID)
        element("RequestType", requestType)
        element("RequestDateTime", requestDateTime)
        element("User", credentials.username)
        element("Password", credentials.password)
        text += "<requestMessage>"
        element("SoftwareVendor", BridgePayWire.softwareVendor)
        element("MerchantCode", credentials.merchantCode)
        element("MerchantAccountCode", credentials.merchantAccountCode)
        for (name, value) in fields { element(name, value) }
        return text + "</requestMessage></requestHeader>"
    }

    /// The HTTP body: the SOAP envelope carrying the base64 document.
    var body: [UInt8] {
        let encoded = Encoding.base64(Array(xml.utf8))
        return Array(("<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:req=\""
            + BridgePayWire.requestNamespace + "\"><soapenv:Header/><soapenv:Body><req:ProcessRequest><req:requestMsg>"
            + encoded + "</req:requestMsg></req:ProcessRequest></soapenv:Body></soapenv:Envelope>").utf8)
    }

    /// `&`, `<`, `>`, `"` and `'` as entities.
    static func escaped(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for character in value {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }

    /// `yyyyMMddHHmmss` in UTC for seconds since 1970 (civil-from-days, no calendar objects).
    static func requestDateTime(unixSeconds: Int64) -> String {
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let secondsOfDay = unixSeconds - days * 86_400
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return pad(year, 4) + pad(month, 2) + pad(day, 2) + pad(secondsOfDay / 3_600, 2)
            + pad(secondsOfDay % 3_600 / 60, 2) + pad(secondsOfDay % 60, 2)
    }
}
