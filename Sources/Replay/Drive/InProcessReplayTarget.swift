import Ingest
import SessionModel

/// A system under test in this process: Swift code that takes the source session's events and returns
/// the events it produces, for an app's own tests (docs/REPLAY.md has an example).
public struct InProcessReplayTarget: ReplayTarget {
    public let name: String
    private let body: @Sendable (ReplayInput, ReplayOutput) async throws -> Void

    /// A target that reads `input` and writes to `output` itself (streaming pipelines).
    public init(name: String, _ body: @escaping @Sendable (ReplayInput, ReplayOutput) async throws -> Void) {
        self.name = name
        self.body = body
    }

    /// A target that answers each event with the events it produces, and the end of its input with the
    /// last ones. Leave an event's time out to have the driver stamp it with the virtual clock.
    public init(name: String,
                onEvent: @escaping @Sendable (RecordedSessionEvent) async throws -> [ProducedEvent],
                onEnd: @escaping @Sendable () async throws -> [ProducedEvent] = { [] }) {
        self.init(name: name) { input, output in
            for await event in input {
                for produced in try await onEvent(event) { try output.emit(produced) }
            }
            for produced in try await onEnd() { try output.emit(produced) }
        }
    }

    public func drive(_ input: ReplayInput, _ output: ReplayOutput) async throws {
        try await body(input, output)
    }
}
