import Foundation
import Hummingbird
import NIOCore
import Yams

/// `GET /openapi.json`: the API's own OpenAPI 3.1 document, converted once to JSON from
/// `openapi.yaml`, a resource of this module.
///
/// Every route the router serves is listed in the document, and every documented operation is
/// served; `OpenAPIDocumentTests` checks the two agree and that live responses carry exactly the
/// documented fields.
struct OpenAPIController {
    /// The document as the YAML source read from the module's resources.
    static let yaml: String = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { fatalError("openapi.yaml is missing from the VaultAPI resource bundle (vault_VaultAPI.resources beside the binary)") }
        return text
    }()

    /// The root key of `openapi.yaml` that only holds YAML anchors (the error responses operations
    /// share, merged into each with `<<`); not part of the served document.
    static let sourceOnlyKey = "x-shared-responses"

    /// The document as JSON bytes, keys sorted, merge keys expanded.
    static let json: [UInt8] = {
        do {
            guard var object = try Yams.load(yaml: yaml) as? [String: Any] else { fatalError("openapi.yaml is not a YAML mapping") }
            object[sourceOnlyKey] = nil
            return Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
        } catch {
            fatalError("openapi.yaml does not convert to JSON: \(error)")
        }
    }()

    func addRoutes(to router: RouterGroup<VaultRequestContext>) {
        // Read and converted when the router is built, so that a binary shipped without its
        // resource bundle stops at start rather than at the first request for the document.
        let json = Self.json
        router.get("openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: json)))
        }
    }
}
