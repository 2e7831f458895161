import AsyncHTTPClient
import FlowModel
import Foundation
import NIOCore
import NIOHTTP1

/// The one HTTP client of flowspec (AsyncHTTPClient): what the checker sends to the backend
/// under test and what the mock backend sends to a provider go through `AHCTransport`, as an
/// `OutgoingRequest` answered by an `HTTPResult`.

/// A request sent over HTTP: the checker to the backend (or posting as the provider), the mock
/// backend to a provider.
public struct OutgoingRequest: Sendable, Hashable {
    public var method: String
    /// Absolute URL.
    public var url: String
    public var headers: [HeaderField]
    public var body: [UInt8]?

    public init(method: String, url: String, headers: [HeaderField] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// Why no (complete) response arrived.
public enum TransportFailure: Sendable, Hashable, CustomStringConvertible {
    case timeout(seconds: Double)
    case connectionRefused
    case connectionReset
    case invalidURL(String)
    case other(String)

    public var description: String {
        switch self {
        case .timeout(let seconds): "timeout: no complete answer within \(Self.format(seconds)) s"
        case .connectionRefused: "connection-refused: nothing listens at the backend's address"
        case .connectionReset: "connection-reset: the backend closed the connection before a complete answer"
        case .invalidURL(let url): "invalid-url: \(url)"
        case .other(let text): "other: \(text)"
        }
    }

    /// Short machine-readable name used in evidence.
    public var code: String {
        switch self {
        case .timeout: "timeout"
        case .connectionRefused: "connection-refused"
        case .connectionReset: "connection-reset"
        case .invalidURL: "invalid-url"
        case .other: "other"
        }
    }

    public static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// What came back: a response (body capped) or a transport failure. Never throws: a hostile
/// backend produces a verdict, not a crash.
public struct HTTPResult: Sendable, Hashable {
    public var status: Int?
    public var headers: [HeaderField]
    public var body: [UInt8]
    /// The body was longer than the read cap; `body` holds its first `cap` bytes.
    public var truncated: Bool
    public var elapsedMS: Int
    public var failure: TransportFailure?

    public init(status: Int?, headers: [HeaderField] = [], body: [UInt8] = [], truncated: Bool = false, elapsedMS: Int = 0, failure: TransportFailure? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.truncated = truncated
        self.elapsedMS = elapsedMS
        self.failure = failure
    }

    public func header(_ name: String) -> String? { headers.value(of: name) }

    public var bodyText: String? { String(validating: body, as: UTF8.self) }
}

/// Sends requests to the backend. The live implementation is `AHCTransport`; tests may
/// substitute their own.
public protocol BackendTransport: Sendable {
    func send(_ request: OutgoingRequest, timeout: Double) async -> HTTPResult
    func shutdown() async
}

/// AsyncHTTPClient-backed transport: redirects are never followed (a 3xx is an answer to
/// judge), bodies are read up to `bodyCap` bytes then the connection is dropped, and every
/// request is bounded by its timeout from connect to the last byte.
public final class AHCTransport: BackendTransport {
    public static let defaultBodyCap = 1 << 20

    private let client: HTTPClient
    private let bodyCap: Int

    public init(bodyCap: Int = AHCTransport.defaultBodyCap, connectTimeout: Double = 10) {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .milliseconds(Int64(connectTimeout * 1000)), read: nil)
        configuration.decompression = .disabled
        configuration.httpVersion = .http1Only
        // A refused connection is a verdict ("nothing listens"), not something to retry until
        // the deadline turns it into a misleading timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.bodyCap = bodyCap
    }

    public func shutdown() async {
        try? await client.shutdown()
    }

    public func send(_ request: OutgoingRequest, timeout: Double) async -> HTTPResult {
        let started = ContinuousClock.now
        func elapsed() -> Int { (ContinuousClock.now - started).wholeMilliseconds }
        guard URL(string: request.url)?.host != nil else {
            return HTTPResult(status: nil, failure: .invalidURL(request.url))
        }
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method.uppercased())
        for field in request.headers {
            outgoing.headers.add(name: field.name, value: field.value)
        }
        if let body = request.body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        let cap = bodyCap
        let client = client
        let prepared = outgoing
        let deadline = NIODeadline.now() + .milliseconds(Int64(timeout * 1000))
        // AsyncHTTPClient's deadline ends when the response's head arrives; the body is bounded
        // by a timer on the event loop that cancels the request. Not a racing `Task.sleep`: a
        // cancelled sleep keeps its timer and task until its deadline has passed, so a run kept
        // one per request of the last `timeout` seconds (megabytes in a long check).
        let state = Locked(RequestState.running)
        let work = Task {
            let result = await Self.receive(prepared, from: client, deadline: deadline, cap: cap)
            state.withLock { if $0 == .running { $0 = .finished } }
            return result
        }
        let timer = client.eventLoopGroup.any().scheduleTask(deadline: deadline) {
            let expired = state.withLock { state -> Bool in
                guard state == .running else { return false }
                state = .expired
                return true
            }
            if expired { work.cancel() }
        }
        let finished = await withTaskCancellationHandler { await work.value } onCancel: { work.cancel() }
        timer.cancel()
        // Whatever the cancelled request ended with, the deadline passed first.
        let outcome: Result<HTTPResult, any Error>? = state.value == .expired ? nil : finished
        switch outcome {
        case .none:
            // Nothing answered in time: tell "nothing listens" apart from "listens but slow".
            if await TCPProbe.check(url: request.url, timeout: 0.5) == .connectionRefused {
                return HTTPResult(status: nil, elapsedMS: elapsed(), failure: .connectionRefused)
            }
            return HTTPResult(status: nil, elapsedMS: elapsed(), failure: .timeout(seconds: timeout))
        case .success(var result)?:
            result.elapsedMS = elapsed()
            return result
        case .failure(let error)?:
            return HTTPResult(status: nil, elapsedMS: elapsed(), failure: Self.classify(error, timeout: timeout))
        }
    }

    /// Which came first: the request's end or its deadline.
    private enum RequestState: Sendable { case running, finished, expired }

    /// Sends `request` and reads its body up to `cap` bytes.
    private static func receive(_ request: HTTPClientRequest, from client: HTTPClient, deadline: NIODeadline, cap: Int) async -> Result<HTTPResult, any Error> {
        do {
            let response = try await client.execute(request, deadline: deadline)
            var body: [UInt8] = []
            var truncated = false
            for try await buffer in response.body {
                let room = cap - body.count
                if buffer.readableBytes > room {
                    body.append(contentsOf: buffer.readableBytesView.prefix(room))
                    truncated = true
                    break
                }
                body.append(contentsOf: buffer.readableBytesView)
            }
            let headers = response.headers.map { HeaderField(name: $0.name, value: $0.value) }
            return .success(HTTPResult(status: Int(response.status.code), headers: headers, body: body, truncated: truncated))
        } catch {
            return .failure(error)
        }
    }

    static func classify(_ error: any Error, timeout: Double) -> TransportFailure {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout, .cancelled:
                return .timeout(seconds: timeout)
            case .remoteConnectionClosed:
                return .connectionReset
            default:
                break
            }
        }
        let text = String(describing: error)
        let lowered = text.lowercased()
        if lowered.contains("refused") { return .connectionRefused }
        if lowered.contains("reset") || lowered.contains("closed") || lowered.contains("eof") || lowered.contains("broken pipe") {
            return .connectionReset
        }
        if lowered.contains("timeout") || lowered.contains("timed out") { return .timeout(seconds: timeout) }
        return .other(Redaction.text(text))
    }
}

/// Counts the requests sent through another transport (for the run's requests/s figure).
public final class CountingTransport: BackendTransport, Sendable {
    private let base: any BackendTransport
    private let count = Locked(0)

    public init(_ base: any BackendTransport) {
        self.base = base
    }

    public var requestsSent: Int { count.value }

    public func send(_ request: OutgoingRequest, timeout: Double) async -> HTTPResult {
        count.withLock { $0 += 1 }
        return await base.send(request, timeout: timeout)
    }

    public func shutdown() async {
        await base.shutdown()
    }
}
