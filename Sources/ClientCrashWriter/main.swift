// Appends to a SessionStoreClient outbox until it is killed, for the outbox's crash-safety test.
//
// Usage: ClientCrashWriter OUTBOX_DIRECTORY KEY_HEX ACK_FILE [WORKERS]
//
// WORKERS threads (4 unless given) each append events of a session of their own, lines of 60 bytes to 6 KB (audio
// chunks' size). After each append has returned (and so is synced), one line goes to ACK_FILE with one write(2):
// `append SEQUENCE EVENT-ID SESSION`. Every 40 events a worker releases the first half of what its session holds, as
// an acknowledgement from the server would, and writes `release SESSION THROUGH` once that returned. The test kills
// this process and checks that the outbox holds every appended event it did not release, in order, intact.
import Foundation
import SessionStoreClient

let parent = getppid()
Thread.detachNewThread {
    while getppid() == parent { usleep(100_000) }
    _exit(70)
}

func writeLine(_ text: String, to descriptor: Int32) {
    _ = text.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
}

/// The line of event `id`: its content follows from its id, so that the test can check what it reads back.
func line(of id: UUID) -> Data {
    let seed = id.uuid.0
    return Data(("{\"id\":\"\(id.uuidString)\",\"pad\":\"" + String(repeating: "x", count: 60 + Int(seed) * 24) + "\"}").utf8)
}

let arguments = CommandLine.arguments
guard arguments.count == 4 || arguments.count == 5, let workers = Int(arguments.count == 5 ? arguments[4] : "4"), workers > 0,
      let key = try? OutboxKey(bytes: stride(from: 0, to: arguments[2].count, by: 2).map { offset -> UInt8 in
          let start = arguments[2].index(arguments[2].startIndex, offsetBy: offset)
          return UInt8(arguments[2][start..<arguments[2].index(start, offsetBy: 2)], radix: 16) ?? 0
      }) else {
    FileHandle.standardError.write(Data("usage: ClientCrashWriter OUTBOX_DIRECTORY KEY_HEX ACK_FILE [WORKERS]\n".utf8))
    exit(64)
}
let outbox: Outbox
do {
    outbox = try Outbox(OutboxConfiguration(directory: URL(fileURLWithPath: arguments[1]), key: key, byteBudget: 1 << 30, segmentBytes: 64 << 10))
} catch {
    FileHandle.standardError.write(Data("ClientCrashWriter: \(error)\n".utf8))
    exit(1)
}
let acks = open(arguments[3], O_WRONLY | O_CREAT | O_APPEND, 0o600)
guard acks >= 0 else { exit(1) }

for _ in 0..<workers {
    Thread.detachNewThread {
        let session = UUID()
        var held: [Outbox.Entry] = []
        while true {
            let id = UUID()
            do {
                let entry = try outbox.append(line: line(of: id), id: id, session: session)
                writeLine("append \(entry.sequence) \(id.uuidString) \(session.uuidString)\n", to: acks)
                held.append(entry)
                if held.count == 40 {
                    let through = held[19].sequence
                    try outbox.acknowledge(session, through: through)
                    writeLine("release \(session.uuidString) \(through)\n", to: acks)
                    held.removeFirst(20)
                }
            } catch {
                FileHandle.standardError.write(Data("ClientCrashWriter: \(error)\n".utf8))
                exit(1)
            }
        }
    }
}
while true { sleep(60) }
