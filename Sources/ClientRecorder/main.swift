// One dictation app recording through SessionStoreClient, for the network checker (tools/netem/check.py).
//
// Usage: ClientRecorder SERVER_URL TOKEN OUTBOX_DIRECTORY KEY_HEX HISTORY_FILE CLIENT SESSIONS CHUNKS PACE_MS
//
// Records SESSIONS sessions one after another, each: started, consent, a recording of CHUNKS chunks of 100 ms of
// 16 kHz PCM with a partial after each and a commit every ten, stopped, ended; a chunk every PACE_MS. Every id, time
// and sample follows from CLIENT, the session's number and the event's, so that a recorder killed and started again
// with the same arguments appends the same events and the checker knows each one's content. After each append that
// returned, one line goes to HISTORY_FILE with one write(2): `ok SESSION EVENT_NUMBER EVENT_ID`; on start, the
// recorder goes on after the last event the history holds. At the end it flushes (up to ten minutes) and prints
// `{"acknowledged": N, "latency_p50_ms": …, "latency_p95_ms": …, "steady_latency_p95_ms": … (after the first second of
// acknowledgements), "connections": N, "outbox_peak_bytes": N,
// "max_rss_kb": N, "outbox_events": N}`. Each connection state, and the first acknowledgement after each connection
// attempt, go to standard error with the wall-clock time (`SECONDS STATE`, `SECONDS first-ack`).
import Foundation
import SessionStoreClient

let parent = getppid()
Thread.detachNewThread {
    while getppid() == parent { usleep(100_000) }
    _exit(70)
}

let arguments = CommandLine.arguments
guard arguments.count == 10, let server = URL(string: arguments[1]), let client = Int(arguments[6]), let sessions = Int(arguments[7]),
      let chunks = Int(arguments[8]), let pace = Int(arguments[9]) else {
    FileHandle.standardError.write(Data("usage: ClientRecorder SERVER_URL TOKEN OUTBOX_DIRECTORY KEY_HEX HISTORY_FILE CLIENT SESSIONS CHUNKS PACE_MS\n".utf8))
    exit(64)
}
let token = arguments[2]
let hex = Array(arguments[4].utf8)
let keyBytes = stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16) ?? 0 }

/// The recording's deterministic parts (tools/netem/check.py computes the same).
enum Script {
    static func uuid(_ parts: Int...) -> UUID {
        var state = UInt64(truncatingIfNeeded: parts.reduce(1469598103934665603) { ($0 ^ UInt64(truncatingIfNeeded: $1)) &* 1099511628211 })
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            bytes += withUnsafeBytes(of: z.bigEndian, Array.init)
        }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// 100 ms of 16 kHz mono: sample n of chunk `index` is ((n · 7 + index · 131 + client · 17) mod 2000) − 1000.
    static func pcm(client: Int, index: Int) -> Data {
        var data = Data(capacity: 3200)
        for n in 0..<1600 {
            let sample = Int16((n * 7 + index * 131 + client * 17) % 2000 - 1000)
            withUnsafeBytes(of: sample.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// The session's events in order, as (what, chunk number): small, so that a long session's audio is made only as
    /// each chunk is appended, and the recorder's memory is the client's.
    enum Kind { case started, consent, recordingStarted, chunk, partial, committed, recordingStopped, ended }

    static func plan(chunks: Int) -> [(kind: Kind, chunk: Int)] {
        var plan: [(kind: Kind, chunk: Int)] = [(.started, 0), (.consent, 0), (.recordingStarted, 0)]
        for index in 0..<chunks {
            plan += [(.chunk, index), (.partial, index)]
            if index % 10 == 9 { plan.append((.committed, index)) }
        }
        return plan + [(.recordingStopped, 0), (.ended, 0)]
    }

    static func event(_ step: (kind: Kind, chunk: Int), client: Int) -> LiveEvent {
        let subject = "netem-client-\(client)", index = step.chunk
        switch step.kind {
        case .started: return .sessionStarted(subject: subject, locale: "en-GB", device: "netem", labels: ["suite": "netem"])
        case .consent: return .consentGranted(subject: subject, consentType: "audio_recording", method: "in_app_prompt")
        case .recordingStarted: return .recordingStarted(recording: "mic", sampleRate: 16_000, channels: 1)
        case .chunk: return .recordingChunk(recording: "mic", index: index, pcm: pcm(client: client, index: index))
        case .partial:
            return .transcriptPartial(segment: String(index / 10), revision: index % 10, text: "word \(index)", startMs: (index / 10) * 1000,
                                      endMs: (index + 1) * 100)
        case .committed:
            return .transcriptCommitted(segment: String(index / 10), text: "words \(index / 10)", startMs: (index / 10) * 1000, endMs: (index + 1) * 100)
        case .recordingStopped: return .recordingStopped(recording: "mic")
        case .ended: return .sessionEnded()
        }
    }
}

// What the history says was appended already.
var done: [Int: Int] = [:]
if let text = try? String(contentsOfFile: arguments[5], encoding: .utf8) {
    for line in text.split(separator: "\n") {
        let parts = line.split(separator: " ")
        if parts.count == 4, parts[0] == "ok", let session = Int(parts[1]), let event = Int(parts[2]) { done[session] = max(done[session] ?? -1, event) }
    }
}
let history = open(arguments[5], O_WRONLY | O_CREAT | O_APPEND, 0o600)
guard history >= 0 else { exit(1) }

let recorder: SessionStoreClient
do {
    var options = SyncOptions()
    options.acknowledgementTimeout = .seconds(5)
    options.backoff = Backoff(base: .milliseconds(100), cap: .seconds(2))
    recorder = try SessionStoreClient(server: server, outbox: OutboxConfiguration(directory: URL(fileURLWithPath: arguments[3]), key: try OutboxKey(bytes: keyBytes)),
                                      options: options) { _ in token }
} catch {
    FileHandle.standardError.write(Data("ClientRecorder: \(error)\n".utf8))
    exit(1)
}

let notices = recorder.notices()
let watcher = Task {
    var latencies: [Double] = [], steady: [Double] = [], connections = 0, firstSinceConnect = false
    var firstAck: ContinuousClock.Instant?
    for await notice in notices {
        switch notice {
        case .acknowledged(_, _, _, _, let latency):
            let milliseconds = Double(latency.components.seconds) * 1000 + Double(latency.components.attoseconds) / 1e15
            latencies.append(milliseconds)
            // Past the first second of acknowledgements: events appended while the first connection opened are not in it.
            let now = ContinuousClock.now
            if let firstAck, now - firstAck > .seconds(1) { steady.append(milliseconds) } else if firstAck == nil { firstAck = now }
            if firstSinceConnect {
                firstSinceConnect = false
                FileHandle.standardError.write(Data("\(Date().timeIntervalSince1970) first-ack\n".utf8))
            }
        case .state(_, let state):
            if state == .connected { connections += 1 }
            if state == .connecting { firstSinceConnect = true }
            FileHandle.standardError.write(Data("\(Date().timeIntervalSince1970) \(state)\n".utf8))
        default: break
        }
    }
    return (latencies, steady, connections)
}
var peak = 0
let base = Date(timeIntervalSince1970: 1_800_000_000)
let plan = Script.plan(chunks: chunks)
do {
    for number in 0..<sessions {
        let session = Script.uuid(client, number)
        var next = ContinuousClock.now
        for (index, step) in plan.enumerated() where index > done[number, default: -1] {
            let id = Script.uuid(client, number, index)
            let event = Script.event(step, client: client)
            try recorder.append(event, to: session, at: base.addingTimeInterval(Double(index) / 10), id: id)
            _ = "ok \(number) \(index) \(id.uuidString.lowercased())\n".utf8CString.withUnsafeBufferPointer { write(history, $0.baseAddress, $0.count - 1) }
            peak = max(peak, recorder.status.outboxBytes)
            if case .recordingChunk = event {
                next += .milliseconds(pace)
                try await Task.sleep(until: next)
            }
        }
    }
    try await recorder.flush(timeout: .seconds(600))
} catch {
    FileHandle.standardError.write(Data("ClientRecorder: \(error)\n".utf8))
    exit(1)
}
let outboxEvents = recorder.status.outboxEvents
await recorder.close()
let (latencies, steady, connections) = await watcher.value
func percentile(_ p: Double, of samples: [Double] = latencies) -> Double {
    let sorted = samples.sorted()
    return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}
var usage = rusage()
#if os(Linux)
getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
#else
getrusage(RUSAGE_SELF, &usage)
#endif
print("{\"acknowledged\": \(latencies.count), \"latency_p50_ms\": \(percentile(0.5)), \"latency_p95_ms\": \(percentile(0.95)), \"steady_latency_p95_ms\": \(percentile(0.95, of: steady)), "
      + "\"connections\": \(connections), \"outbox_peak_bytes\": \(peak), \"max_rss_kb\": \(usage.ru_maxrss), \"outbox_events\": \(outboxEvents)}")
