import HummingbirdCore
import Logging
import NIOCore
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

/// Sits behind the protocol decoders: closes the connection on the idle event, on any error they
/// raise but a refused WebSocket upgrade, and when nothing has passed the decoders within the head
/// timeout (a client trickling a request head a byte at a time keeps the idle timer from firing);
/// counts the connection while it is open. Everything passes through untouched.
final class ConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Never
    let metrics: ServerMetrics
    let headTimeout: TimeAmount
    private var headDeadline: Scheduled<Void>?

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
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .all {
            context.close(promise: nil)
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
