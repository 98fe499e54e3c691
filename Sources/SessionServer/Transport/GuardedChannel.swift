import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Every connection, whatever becomes of it (HTTP, a WebSocket, a request that never parses), closed
/// when it has neither read nor written for the idle timeout, and at once on a protocol error (a
/// malformed request head, one over the header limits, a bad WebSocket frame); and counted for
/// `/metrics`. Hummingbird's WebSocket upgrade pipeline adds its idle timeout and error answers only
/// once a request has parsed, so a client sending garbage would otherwise hold its connection forever.
struct GuardedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let idleTimeout: TimeAmount
    /// The first request's head must be whole within this time of the connection opening.
    let headTimeout: TimeAmount
    let metrics: ServerMetrics

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(IdleStateHandler(allTimeout: idleTimeout))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(ConnectionGuard(metrics: metrics, headTimeout: headTimeout))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Sits behind the protocol decoders: closes the connection on the idle event unless the server is
/// still working on a request it has read whole (its answer may take longer than the idle timeout: a
/// read waiting for the store's write lock, an export of a long session); on any error the decoders
/// raise but a refused WebSocket upgrade; and when nothing has passed the decoders within the head
/// timeout (a client trickling a request head a byte at a time keeps the idle timer from firing).
/// Counts the connection while it is open. Everything passes through untouched.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    /// Whatever the connection carries: HTTP parts, then WebSocket frames after an upgrade.
    typealias InboundIn = Any
    typealias OutboundIn = Any
    let metrics: ServerMetrics
    let headTimeout: TimeAmount
    private var headDeadline: Scheduled<Void>?
    /// Requests whose answers have not ended.
    private var answering = 0
    /// A request whose head has arrived and whose end has not: the client is still sending it.
    private var reading = false

    init(metrics: ServerMetrics, headTimeout: TimeAmount) {
        self.metrics = metrics
        self.headTimeout = headTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        metrics.connectionOpened()
        let channel = context.channel
        headDeadline = context.eventLoop.scheduleTask(in: headTimeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        headDeadline?.cancel()
        metrics.connectionClosed()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        headDeadline?.cancel()
        headDeadline = nil
        switch unwrapInboundIn(data) as? HTTPServerRequestPart {
        case .head: reading = true; answering += 1
        case .end: reading = false
        case .body, nil: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) as? HTTPServerResponsePart {
            answering = max(0, answering - 1)
        }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .all {
            if reading || answering == 0 { context.close(promise: nil) }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A refused WebSocket upgrade is answered (400) by Hummingbird once the handshake is given up.
        if error is NIOWebSocketUpgradeError {
            context.fireErrorCaught(error)
        } else {
            context.close(promise: nil)
        }
    }
}
