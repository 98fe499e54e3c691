import Foundation
import Hummingbird
import NIOCore
import Output

/// An answer written as it is made: `produce` writes to an ``OutputSink`` on a thread of its own (an
/// export reads the store synchronously), and each buffer it fills is sent before the next is made, with
/// at most a few buffers (64 KiB each) in flight: memory stays flat for an export of any size. A client
/// that goes away stops the writer at its next buffer.
///
/// Once the first bytes are sent the status is 200: a failure after that ends the answer early (the
/// connection closes before the chunked body's end), so everything that can be checked is checked before.
enum StreamedBody {
    static let buffersInFlight = 4

    static func response(headers: HTTPFields, produce: @escaping @Sendable (OutputSink) throws -> Void) -> Response {
        let body = ResponseBody { writer in
            let pipe = ChunkPipe(capacity: buffersInFlight)
            let (chunks, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
            Thread.detachNewThread {
                let sink = OutputSink.forwarding { chunk in
                    try pipe.waitForRoom()
                    continuation.yield(chunk)
                }
                do {
                    try produce(sink)
                    try sink.close()
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            do {
                for try await chunk in chunks {
                    try await writer.write(ByteBuffer(bytes: chunk))
                    pipe.sent()
                }
            } catch {
                pipe.stop()
                throw error
            }
            pipe.stop()
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}

/// How many buffers the writer may have handed over and not yet seen sent; and whether the reader
/// stopped (the client went away), which the writer learns at its next buffer.
private final class ChunkPipe: @unchecked Sendable {
    // @unchecked: `inFlight` and `stopped` are guarded by `condition`.
    private let condition = NSCondition()
    private let capacity: Int
    private var inFlight = 0
    private var stopped = false

    struct Stopped: Error, CustomStringConvertible {
        var description: String { "the client stopped reading" }
    }

    init(capacity: Int) {
        self.capacity = capacity
    }

    func waitForRoom() throws {
        condition.lock()
        defer { condition.unlock() }
        while inFlight >= capacity, !stopped { condition.wait() }
        guard !stopped else { throw Stopped() }
        inFlight += 1
    }

    func sent() {
        condition.lock()
        inFlight -= 1
        condition.signal()
        condition.unlock()
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}
