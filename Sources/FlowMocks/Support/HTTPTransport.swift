import FlowModel
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the mock backend reaches the identity provider (JWKS, token, revoke, and the attacker
/// URLs a defective backend fetches). Over real HTTP by default; in-process for fast tests.
public protocol HTTPTransport: Sendable {
    /// Sends `request` to `url` (absolute: scheme, host, port, path and query).
    func send(_ request: MockHTTPRequest, to url: URL) async throws -> MockHTTPResponse
}

/// Real HTTP through URLSession (libcurl on Linux), with a timeout and no redirects followed.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession

    public init(timeout: TimeInterval = 10) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    public func send(_ request: MockHTTPRequest, to url: URL) async throws -> MockHTTPResponse {
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        let (data, response) = try await session.data(for: urlRequest)
        let http = response as? HTTPURLResponse
        var headers: [HeaderField] = []
        for (name, value) in http?.allHeaderFields ?? [:] {
            headers.append(HeaderField(name: "\(name)", value: "\(value)"))
        }
        return MockHTTPResponse(status: http?.statusCode ?? 0, headers: headers, body: Array(data))
    }

    deinit { session.invalidateAndCancel() }
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
        guard let handler = routes[Self.key(url)] else { throw URLError(.cannotConnectToHost) }
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        var routed = request
        routed.target = target
        return await handler.handle(routed)
    }
}
