import Foundation

/// Maps `0..<count` to values on up to `workers` threads at once, in order.
///
/// Each worker is handed one contiguous range and returns that range's values, so a worker can set up
/// what it needs once (a sealer, a decompressor) and use it for its whole range. The results are put
/// together in index order. With one worker, or a count below `threshold`, everything runs on the
/// calling thread.
///
/// This is the package's one audited place where work runs on several threads over values that are
/// not `Sendable`: `work` is called concurrently for disjoint ranges and must only read what it shares.
///
/// - Parameters:
///   - count: How many values to make.
///   - workers: The most threads to use.
///   - threshold: Below this count, one thread does everything.
///   - work: Makes the values of `range`; called once per worker.
package func parallelMap<T>(count: Int, workers: Int, threshold: Int = 1,
                            _ work: (_ worker: Int, _ range: Range<Int>) -> [T]) -> [T] {
    let parts = parallelParts(count: count, workers: workers, threshold: threshold, work)
    guard parts.count > 1 else { return parts.first ?? [] }
    var values: [T] = []
    values.reserveCapacity(count)
    for part in parts { values.append(contentsOf: part) }
    return values
}

/// ``parallelMap(count:workers:threshold:_:)`` without putting the values together: each worker's, in order. A reader
/// that goes through them once saves copying every value (and, for values holding references, retaining and releasing each).
package func parallelParts<T>(count: Int, workers: Int, threshold: Int = 1,
                              _ work: (_ worker: Int, _ range: Range<Int>) -> [T]) -> [[T]] {
    let workers = count < max(threshold, 2) ? 1 : max(1, min(workers, count))
    guard workers > 1 else { return count > 0 ? [work(0, 0..<count)] : [] }
    var parts = [[T]](repeating: [], count: workers)
    parts.withUnsafeMutableBufferPointer { output in
        withoutActuallyEscaping(work) { work in
            let shared = ParallelWork(work: work, output: output, count: count)
            DispatchQueue.concurrentPerform(iterations: workers) { shared.run(worker: $0) }
        }
    }
    return parts
}

/// Maps each index of `0..<count` on up to `workers` threads; see ``parallelMap(count:workers:threshold:_:)``.
package func parallelMap<T>(count: Int, workers: Int, threshold: Int = 1, _ transform: (Int) -> T) -> [T] {
    parallelMap(count: count, workers: workers, threshold: threshold) { _, range in range.map(transform) }
}

/// What the workers of one ``parallelMap(count:workers:threshold:_:)`` share.
private struct ParallelWork<T>: @unchecked Sendable {
    // @unchecked: worker `w` writes only `output[w]`, which no one else reads until every worker has
    // returned; `work` is called once per worker over disjoint ranges, and the caller of parallelMap
    // promises it only reads what the workers share.
    let work: (Int, Range<Int>) -> [T]
    let output: UnsafeMutableBufferPointer<[T]>
    let count: Int

    func run(worker: Int) {
        let workers = output.count
        let range = (worker * count / workers)..<((worker + 1) * count / workers)
        output[worker] = range.isEmpty ? [] : work(worker, range)
    }
}
