import OpenAPIKit
import OpenAPIKit30
import OpenAPIKitCompat
import Yams

/// OpenAPI 3.0 documents: decoded with OpenAPIKit30, converted to 3.1 by OpenAPIKitCompat
/// (`nullable` becomes a `null` type, `example` moves into `examples`), so the checks are
/// written once, against 3.1. Kept in its own file: both modules declare `OpenAPI`.
enum OpenAPI30Reader {
    static func decode(_ node: Node) throws -> OpenAPIKit.OpenAPI.Document {
        let document = try NodeDecoder.decode(OpenAPIKit30.OpenAPI.Document.self, from: node)
        return document.convert(to: .v3_1_0)
    }
}
