// Appends to SessionStoreClient's outbox as an app does (100 ms chunks of 16 kHz audio, 4.3 KB ingest lines), with the
// server away, against the baseline of the same bytes written and synced with write(2) + fsync(2) into a file of the
// same directory, in the same run: the sync is most of an append's cost, and the ratio says what the outbox adds.
//
// Usage: client-bench DIRECTORY [APPENDS] — prints one JSON line.
import Foundation
import SessionStoreClient

let arguments = CommandLine.arguments
let directory = URL(fileURLWithPath: arguments.count > 1 ? arguments[1] : NSTemporaryDirectory()).appendingPathComponent("client-bench-\(UUID())")
let appends = arguments.count > 2 ? Int(arguments[2]) ?? 2000 : 2000
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

func percentiles(_ samples: [Double]) -> (p50: Double, p99: Double) {
    let sorted = samples.sorted()
    return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

let pcm = Data((0..<3200).map { UInt8(truncatingIfNeeded: $0 &* 31) })

// Baseline: the bytes of one record, written and synced.
let baselineFile = directory.appendingPathComponent("baseline")
let descriptor = open(baselineFile.path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
let record = [UInt8](repeating: 7, count: 4_400)
var baseline: [Double] = []
for _ in 0..<appends {
    let start = ContinuousClock.now
    _ = record.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    fsync(descriptor)
    baseline.append(milliseconds(ContinuousClock.now - start))
}
close(descriptor)

// The client, its server away (nothing is sent; the outbox only grows).
let client = try SessionStoreClient(server: URL(string: "http://127.0.0.1:9")!,
                                    outbox: OutboxConfiguration(directory: directory.appendingPathComponent("outbox"), key: .generate())) { _ in "token" }
let session = UUID()
try client.append(.sessionStarted(subject: "bench", locale: "en-GB"), to: session)
try client.append(.recordingStarted(recording: "mic", sampleRate: 16_000, channels: 1), to: session)
var outbox: [Double] = []
for index in 0..<appends {
    let start = ContinuousClock.now
    try client.append(.recordingChunk(recording: "mic", index: index, pcm: pcm), to: session)
    outbox.append(milliseconds(ContinuousClock.now - start))
}
await client.close()
let (b50, b99) = percentiles(baseline), (o50, o99) = percentiles(outbox)
print(String(format: "{\"appends\": %d, \"baseline_p50_ms\": %.3f, \"baseline_p99_ms\": %.3f, \"append_p50_ms\": %.3f, \"append_p99_ms\": %.3f, "
             + "\"p50_ratio\": %.2f, \"p99_ratio\": %.2f}", appends, b50, b99, o50, o99, o50 / b50, o99 / b99))
