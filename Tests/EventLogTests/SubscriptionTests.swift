import EventLog
import Foundation
import TestSupport
import Testing

@Suite struct SubscriptionTests {
    @Test func aSubscriptionDeliversHistoryThenLiveEventsExactlyOnce() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            try await log.append((0..<700).map { event("\($0)") }, to: stream)

            let total = 1_000
            let reader = Task {
                var seen: [UInt64] = []
                for try await recorded in log.subscribe() {
                    seen.append(recorded.position)
                    if seen.count == total { break }
                }
                return seen
            }
            for index in 700..<total {
                try await log.append([event("\(index)")], to: index.isMultiple(of: 3) ? StreamID() : stream)
            }
            let seen = try await reader.value
            #expect(seen == Array(0..<UInt64(total)))
        }
    }

    @Test func aSubscriptionResumesFromAGivenPosition() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            try await log.append((0..<10).map { event("\($0)") }, to: StreamID())
            var iterator = log.subscribe(from: 7).makeAsyncIterator()
            #expect(try await iterator.next()?.text == "7")
            #expect(try await iterator.next()?.text == "8")
            #expect(try await iterator.next()?.text == "9")
        }
    }

    @Test func aWaitingSubscriptionEndsWhenItsTaskIsCancelled() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            try await log.append([event("only")], to: StreamID())
            let reader = Task {
                var count = 0
                for try await _ in log.subscribe() { count += 1 }
                return count
            }
            try await Task.sleep(for: .milliseconds(100))
            reader.cancel()
            #expect(try await reader.value == 1)
        }
    }
}
