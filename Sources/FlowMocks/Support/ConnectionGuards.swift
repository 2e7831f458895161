import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection that has not delivered a complete request head within `deadline` of
/// opening: it sits after HTTP decoding, so any message it sees means a head was parsed, and a
/// client trickling header bytes never gets that far. (A kept-alive connection afterwards is
/// bounded by the server's idle timeout.)
final class RequestHeadDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any
    typealias InboundOut = Any

    private let deadline: TimeAmount
    private var timer: Scheduled<Void>?

    init(_ deadline: TimeAmount) { self.deadline = deadline }

    func handlerAdded(context: ChannelHandlerContext) { arm(context) }

    func handlerRemoved(context: ChannelHandlerContext) { timer?.cancel() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        timer?.cancel()
        timer = nil
        context.fireChannelRead(data)
    }


    private func arm(_ context: ChannelHandlerContext) {
        timer?.cancel()
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: deadline) { channel.close(promise: nil) }
    }
}

/// Cuts off a request body larger than `limit` instead of reading it to the end: a declared
/// `Content-Length` beyond the limit is answered 413 straight away without passing the request
/// on, and the connection closes; a chunked body that grows past the limit is passed on up to
/// the chunk that crosses it (so the responder's bounded collect fails and answers 413), the
/// socket is read no more, and the connection closes once that answer is written. Without it a client
/// could make the server read 100 MB it had already refused.
final class RequestBodyLimit: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State { case normal(received: Int), overflowed, refused }

    private let limit: Int
    private var state = State.normal(received: 0)

    init(limit: Int) { self.limit = limit }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), state) {
        case (_, .refused), (_, .overflowed):
            return
        case (.head(let head), _):
            if let declared = head.headerFields[.contentLength].flatMap(Int.init), declared > limit {
                state = .refused
                refuse(context: context)
                return
            }
            state = .normal(received: 0)
        case (.body(let chunk), .normal(let received)):
            let total = received + chunk.readableBytes
            state = total > limit ? .overflowed : .normal(received: total)
        case (.end, _):
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .overflowed = state, case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        context.writeAndFlush(data, promise: promise)
        context.close(promise: nil)
    }

    /// Once a body is refused the socket is read no more: what the client still sends stays in
    /// its own buffers until the 413 and the close, however long the responder takes to answer
    /// (on a busy machine its task may wait for a thread while the event loop would otherwise
    /// read and drop megabytes).
    func read(context: ChannelHandlerContext) {
        if case .normal = state { context.read() }
    }

    private func refuse(context: ChannelHandlerContext) {
        let refusal = MockHTTPResponse.tooLarge(limit: limit)
        var fields = HTTPFields()
        for header in refusal.headers { if let name = HTTPField.Name(header.name) { fields[name] = header.value } }
        fields[.contentLength] = String(refusal.body.count)
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .contentTooLarge, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: refusal.body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}
