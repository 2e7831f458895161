import FlowModel
import Foundation

/// How the mock backend reaches the identity provider (JWKS, token, revoke, and the attacker
/// URLs a defective backend fetches). Over real HTTP by default; in-process for fast tests.
public protocol HTTPTransport: Sendable {
    /// Sends `request` to `url` (absolute: scheme, host, port, path and query).
    func send(_ request: MockHTTPRequest, to url: URL) async throws -> MockHTTPResponse
}

/// Real HTTP through the one `AHCTransport` of the process (no redirects followed, a timeout per
/// request): the request becomes an `OutgoingRequest`, the `HTTPResult` a `MockHTTPResponse`,
/// and a transport failure is thrown.
public struct NetworkTransport: HTTPTransport {
    /// Shared by every mock backend of the process and never shut down (it lives as long as the
    /// program).
    private static let client = AHCTransport(bodyCap: 16 << 20)

    private let timeout: TimeInterval

    public init(timeout: TimeInterval = 10) {
        self.timeout = timeout
    }

    public func send(_ request: MockHTTPRequest, to url: URL) async throws -> MockHTTPResponse {
        let outgoing = OutgoingRequest(method: request.method.uppercased(), url: url.absoluteString, headers: request.headers, body: request.body.isEmpty ? nil : request.body)
        let result = await Self.client.send(outgoing, timeout: timeout)
        guard let status = result.status else { throw ProviderCallFailure(failure: result.failure ?? .other("no answer")) }
        return MockHTTPResponse(status: status, headers: result.headers, body: result.body)
    }
}

/// A provider call that got no answer.
public struct ProviderCallFailure: Error, CustomStringConvertible {
    public var failure: TransportFailure
    public var description: String { failure.description }
}

/// No handler serves the host and port a request was routed to.
public struct UnroutedRequest: Error, CustomStringConvertible {
    public var hostAndPort: String
    public var description: String { "nothing serves \(hostAndPort)" }
}

/// Routes requests straight to handlers by host and port, no sockets: the provider still
/// records every request, so observations are the same as over HTTP.
public struct InProcessTransport: HTTPTransport {
    private let routes: [String: any MockHTTPHandler]

    /// `routes` maps `host:port` (as in the base URL) to the handler serving it.
    public init(routes: [String: any MockHTTPHandler]) {
        self.routes = routes
    }

    public init(baseURL: URL, handler: any MockHTTPHandler) {
        self.init(routes: [Self.key(baseURL): handler])
    }

    static func key(_ url: URL) -> String { "\(url.host ?? ""):\(url.port ?? 80)" }

    public func send(_ request: MockHTTPRequest, to url: URL) async throws -> MockHTTPResponse {
        guard let handler = routes[Self.key(url)] else { throw UnroutedRequest(hostAndPort: Self.key(url)) }
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        var routed = request
        routed.target = target
        return await handler.handle(routed)
    }
}
