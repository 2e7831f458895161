import FlowModel
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Logging

/// Something that answers mock HTTP requests: the provider and the backend.
public protocol MockHTTPHandler: Sendable {
    func handle(_ request: MockHTTPRequest) async -> MockHTTPResponse
}

/// Why a mock server could not start.
public enum MockServerError: Error, CustomStringConvertible, Equatable {
    case alreadyRunning
    case bindFailed(host: String, port: Int, detail: String)

    public var description: String {
        switch self {
        case .alreadyRunning: "the server is already running"
        case .bindFailed(let host, let port, let detail): "could not listen on \(host):\(port): \(detail)"
        }
    }
}

/// Runs a `MockHTTPHandler` on a real socket with Hummingbird. Binds where it is told (tests use
/// port 0 and read the bound port back); `stop()` cancels the server and waits for it.
actor MockHTTPServer {
    private var task: Task<Void, Never>?
    private(set) var baseURL: URL?
    /// How long a new connection may take to send a complete request head: a slow-loris client
    /// (a header byte a second) is cut off.
    let headDeadline: TimeAmount

    init(headDeadline: TimeAmount = .seconds(10)) {
        self.headDeadline = headDeadline
    }

    /// Largest request body accepted; larger bodies get 413 and the connection closes
    /// (`RequestBodyLimit`).
    static let maxBodyBytes = 4 << 20

    func start(host: String, port: Int, handler: any MockHTTPHandler, label: String) async throws -> URL {
        guard task == nil else { throw MockServerError.alreadyRunning }
        var logger = Logger(label: "flowspec.\(label)")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            var request = request
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: Self.maxBodyBytes)
            } catch {
                return Self.hbResponse(.tooLarge(limit: Self.maxBodyBytes))
            }
            var headers: [HeaderField] = []
            for field in request.headers { headers.append(HeaderField(name: field.name.canonicalName, value: field.value)) }
            let mock = MockHTTPRequest(
                method: request.method.rawValue,
                target: request.uri.string,
                headers: headers,
                body: body.getBytes(at: body.readerIndex, length: body.readableBytes) ?? [])
            return Self.hbResponse(await handler.handle(mock))
        }
        let deadline = headDeadline
        let app = Application(
            responder: responder,
            server: .http1(configuration: .init(additionalChannelHandlers: [RequestHeadDeadline(deadline), RequestBodyLimit(limit: Self.maxBodyBytes)], idleTimeout: .seconds(60))),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? port)
                continuation.finish()
            },
            logger: logger)
        let failure = FailureBox()
        task = Task {
            do {
                try await app.run()
            } catch {
                await failure.set(error)
            }
            continuation.finish()
        }
        var boundPort: Int?
        for await value in ports {
            boundPort = value
            break
        }
        guard let boundPort else {
            task = nil
            let detail = await failure.error.map { "\($0)" } ?? "server stopped before listening"
            throw MockServerError.bindFailed(host: host, port: port, detail: detail)
        }
        let url = URL(string: "http://\(host):\(boundPort)")!
        baseURL = url
        return url
    }

    func stop() async {
        guard let task else { return }
        task.cancel()
        await task.value
        self.task = nil
        baseURL = nil
    }

    private static func hbResponse(_ response: MockHTTPResponse) -> Response {
        var fields = HTTPFields()
        for header in response.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        fields[.contentLength] = String(response.body.count)
        return Response(
            status: HTTPResponse.Status(code: response.status),
            headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
    }
}

private actor FailureBox {
    var error: (any Error)?
    func set(_ error: any Error) { self.error = error }
}
