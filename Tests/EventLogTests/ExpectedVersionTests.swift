import EventLog
import TestSupport
import Testing

@Suite struct ExpectedVersionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var existingEvents: Int
        var expected: ExpectedVersion
        var admitted: Bool
        var testDescription: String { "\(expected) on a stream of \(existingEvents) events → \(admitted ? "appends" : "refused")" }
    }

    static let cases: [Case] = [
        Case(existingEvents: 0, expected: .any, admitted: true),
        Case(existingEvents: 2, expected: .any, admitted: true),
        Case(existingEvents: 0, expected: .noStream, admitted: true),
        Case(existingEvents: 2, expected: .noStream, admitted: false),
        Case(existingEvents: 0, expected: .streamExists, admitted: false),
        Case(existingEvents: 2, expected: .streamExists, admitted: true),
        Case(existingEvents: 2, expected: .exact(2), admitted: true),
        Case(existingEvents: 2, expected: .exact(1), admitted: false),
        Case(existingEvents: 2, expected: .exact(3), admitted: false),
        Case(existingEvents: 0, expected: .exact(0), admitted: true),
    ]

    @Test(arguments: cases)
    func appendHonoursTheExpectedVersion(_ testCase: Case) async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            if testCase.existingEvents > 0 {
                try await log.append((0..<testCase.existingEvents).map { event("\($0)") }, to: stream)
            }
            if testCase.admitted {
                let result = try await log.append([event("new")], to: stream, expectedVersion: testCase.expected)
                #expect(result.nextExpectedVersion == UInt64(testCase.existingEvents + 1))
                #expect(try log.readStream(stream).last?.text == "new")
            } else {
                let error = await #expect(throws: EventLogError.self) {
                    try await log.append([event("new")], to: stream, expectedVersion: testCase.expected)
                }
                #expect(error?.code == .wrongExpectedVersion)
                #expect(error?.stream == stream)
                #expect(error?.expectedVersion == testCase.expected)
                #expect(error?.actualVersion == UInt64(testCase.existingEvents))
                #expect(try log.readStream(stream).count == testCase.existingEvents)
            }
        }
    }

    @Test func aRefusedAppendLeavesTheOthersInItsBatchUntouched() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let contested = StreamID()
            try await log.append([event("first")], to: contested)
            // Many appends at once share transactions; the stale ones fail alone.
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let target = index.isMultiple(of: 2) ? contested : StreamID()
                        let expected: ExpectedVersion = index.isMultiple(of: 2) ? .exact(0) : .noStream
                        return (try? await log.append([event("\(index)")], to: target, expectedVersion: expected)) != nil
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 10)
            #expect(try log.readStream(contested).map(\.text) == ["first"])
            #expect(try log.eventCount() == 11)
            #expect(try log.verify().isIntact)
        }
    }

    @Test func anEmptyAppendChecksTheVersionAndWritesNothing() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            try await log.append([event("a")], to: stream)
            let result = try await log.append([], to: stream, expectedVersion: .exact(1))
            #expect(result.nextExpectedVersion == 1)
            #expect(result.positions.isEmpty)
            await #expect(throws: EventLogError.self) { try await log.append([], to: stream, expectedVersion: .noStream) }
            #expect(try log.eventCount() == 1)
        }
    }
}
