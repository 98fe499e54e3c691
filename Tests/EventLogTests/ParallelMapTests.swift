@testable import EventLog
import Foundation
import Synchronization
import Testing

@Suite struct ParallelMapTests {
    @Test(arguments: [0, 1, 2, 3, 63, 64, 1000, 4099])
    func mapsEveryIndexOnceInOrder(count: Int) {
        let values = parallelMap(count: count, workers: 4) { $0 * 3 }
        #expect(values == (0..<count).map { $0 * 3 })
    }

    @Test func workersGetDisjointContiguousRangesThatCoverEverything() {
        let seen = Mutex<[(worker: Int, range: Range<Int>)]>([])
        let values = parallelMap(count: 1001, workers: 3) { worker, range in
            seen.withLock { $0.append((worker, range)) }
            return Array(range)
        }
        #expect(values == Array(0..<1001))
        let ranges = seen.withLock { $0 }.sorted { $0.range.lowerBound < $1.range.lowerBound }
        #expect(ranges.count == 3)
        #expect(Set(ranges.map(\.worker)) == [0, 1, 2])
        #expect(ranges.first?.range.lowerBound == 0)
        #expect(ranges.last?.range.upperBound == 1001)
        for (left, right) in zip(ranges, ranges.dropFirst()) { #expect(left.range.upperBound == right.range.lowerBound) }
    }

    @Test func partsAreEachWorkersValuesInOrderAndTogetherTheMap() {
        let parts = parallelParts(count: 1001, workers: 3) { _, range in range.map { $0 * 2 } }
        #expect(parts.count == 3)
        #expect(parts.allSatisfy { !$0.isEmpty })
        #expect(parts.flatMap { $0 } == (0..<1001).map { $0 * 2 })
        #expect(parallelParts(count: 0, workers: 3) { _, range in Array(range) }.isEmpty)
        #expect(parallelParts(count: 5, workers: 1) { _, range in Array(range) } == [[0, 1, 2, 3, 4]])
    }

    @Test func belowTheThresholdOneWorkerDoesEverythingOnTheCallingThread() {
        let caller = Thread.current
        let calls = Mutex(0)
        let values = parallelMap(count: 63, workers: 8, threshold: 64) { worker, range in
            calls.withLock { $0 += 1 }
            #expect(worker == 0)
            #expect(Thread.current == caller)
            return range.map { -$0 }
        }
        #expect(calls.withLock { $0 } == 1)
        #expect(values == (0..<63).map { -$0 })
    }

    @Test func moreWorkersThanValuesNeverCallsWorkWithAnEmptyRange() {
        let values = parallelMap(count: 3, workers: 16) { _, range in
            #expect(!range.isEmpty)
            return Array(range)
        }
        #expect(values == [0, 1, 2])
    }

    @Test func workersReallyRunAtTheSameTime() {
        // Each worker waits until every worker has started: this returns only if they run concurrently.
        let started = Mutex(0)
        let values = parallelMap(count: 2, workers: 2) { _, range in
            started.withLock { $0 += 1 }
            let deadline = Date().addingTimeInterval(30)
            while started.withLock({ $0 }) < 2, Date() < deadline { usleep(100) }
            return range.map { _ in started.withLock { $0 } }
        }
        #expect(values == [2, 2])
    }
}
