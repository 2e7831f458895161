import AsyncHTTPClient
import FlowModel
import Foundation
import NIOCore
import NIOHTTP1

/// How the mock backend reaches the identity provider (JWKS, token, revoke, and the attacker
/// URLs a defective backend fetches). Over real HTTP by default; in-process for fast tests.
public protocol HTTPTransport: Sendable {
    /// Sends `request` to `url` (absolute: scheme, host, port, path and query).
    func send(_ request: MockHTTPRequest, to url: URL) async throws -> MockHTTPResponse
}

/// Real HTTP through AsyncHTTPClient, with a timeout and no redirects followed. (Not URLSession:
/// on Linux that links FoundationNetworking and libcurl, which cost every `flowspec` command
/// about 10 ms of start-up.)
public struct NetworkTransport: HTTPTransport {
    /// One client for the process, never shut down (it lives as long as the program).
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.decompression = .disabled
        configuration.httpVersion = .http1Only
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    private let timeout: TimeInterval

    public init(timeout: TimeInterval = 10) {
        self.timeout = timeout
    }

    public func send(_ request: MockHTTPRequest, to url: URL) async throws -> MockHTTPResponse {
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method.uppercased())
        for header in request.headers { outgoing.headers.replaceOrAdd(name: header.name, value: header.value) }
        if !request.body.isEmpty { outgoing.body = .bytes(ByteBuffer(bytes: request.body)) }
        let milliseconds = Int64(timeout * 1000)
        let response = try await Self.client.execute(outgoing, deadline: .now() + .milliseconds(milliseconds))
        var body = try await response.body.collect(upTo: 16 << 20)
        let headers = response.headers.map { HeaderField(name: $0.name, value: $0.value) }
        return MockHTTPResponse(status: Int(response.status.code), headers: headers, body: body.readBytes(length: body.readableBytes) ?? [])
    }
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
