import Foundation
import Hummingbird
import NIOCore
import Yams

/// `GET /openapi.json`: the API's own OpenAPI 3 document, converted once from the YAML source.
struct OpenAPIController {
    /// The document as JSON bytes.
    static let json: [UInt8] = {
        guard let object = try? Yams.load(yaml: OpenAPIDocument.yaml),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return Array("{}".utf8) }
        return Array(data)
    }()

    func addRoutes(to router: Router<VaultRequestContext>) {
        router.get("openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: Self.json)))
        }
    }
}
