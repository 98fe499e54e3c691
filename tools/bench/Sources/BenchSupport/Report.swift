import Foundation

/// What every benchmark executable prints and how it times: one JSON object per line on stdout.
public enum Report {
    public static func emit(_ fields: [String: Any]) {
        let json = try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
        FileHandle.standardOutput.write(json + Data("\n".utf8))
    }

    public static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Seconds `body` took.
    public static func time(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let started = clock.now
        try body()
        return seconds(clock.now - started)
    }

    /// ``time(_:)`` of an async body.
    public static func time(_ body: () async throws -> Void) async rethrows -> Double {
        let clock = ContinuousClock()
        let started = clock.now
        try await body()
        return seconds(clock.now - started)
    }

    /// p50, p99 and the worst of `latencies` (seconds), in milliseconds.
    public static func latencyFields(_ latencies: [Double]) -> [String: Any] {
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000 }
        return ["p50_ms": percentile(0.5), "p99_ms": percentile(0.99), "max_ms": (sorted.last ?? 0) * 1000]
    }

    /// The records of a workload file (u32 little-endian length ‖ bytes, repeated), at most `limit`.
    public static func readRecords(_ url: URL, limit: Int) throws -> [[UInt8]] {
        let data = [UInt8](try Data(contentsOf: url))
        var records: [[UInt8]] = []
        var offset = 0
        while offset + 4 <= data.count, records.count < limit {
            let length = Int(UInt32(data[offset]) | UInt32(data[offset + 1]) << 8 | UInt32(data[offset + 2]) << 16 | UInt32(data[offset + 3]) << 24)
            records.append(Array(data[(offset + 4)..<(offset + 4 + length)]))
            offset += 4 + length
        }
        return records
    }

    /// The bytes of the files in `directory` whose names start with `prefix`.
    public static func bytesOnDisk(directory: URL, prefix: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) }.reduce(0) { total, name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            return total + ((attributes?[.size] as? Int) ?? 0)
        }
    }
}
