// Appends to an existing store until it is killed, for the crash-safety tests.
//
// Usage: EventLogCrashWriter STORE KEY_FILE ACK_FILE [APPENDERS]
//
// APPENDERS tasks (8 unless given) append batches of one to four events to their own streams (event
// `writer PID worker W round R event I` of a batch of 1 + R % 4). After each append has returned (and so is
// durable), one line goes to ACK_FILE: `position event-id` per event. The crash-safety and power-loss
// tests kill this process and check that every acknowledged event survived and no batch is cut.
import EventLog
import Foundation

// A writer whose test process died (killed, crashed) must not write on forever: it exits when it
// is orphaned.
let parent = getppid()
Thread.detachNewThread {
    while getppid() == parent { usleep(100_000) }
    _exit(70)
}

let arguments = CommandLine.arguments
guard arguments.count == 4 || arguments.count == 5, let appenders = Int(arguments.count == 5 ? arguments[4] : "8"), appenders > 0 else {
    FileHandle.standardError.write(Data("usage: EventLogCrashWriter STORE KEY_FILE ACK_FILE [APPENDERS]\n".utf8))
    exit(64)
}
let log: EventLog
do {
    log = try EventLog.open(at: arguments[1], key: .keyFile(arguments[2]))
} catch {
    FileHandle.standardError.write(Data("EventLogCrashWriter: \(error)\n".utf8))
    exit(1)
}
let descriptor = open(arguments[3], O_WRONLY | O_CREAT | O_APPEND, 0o600)
guard descriptor >= 0 else { exit(1) }

/// One write(2) per acknowledgement: the line is in the kernel the moment it returns, kill or not.
func acknowledge(_ result: AppendResult, _ events: [ProposedEvent]) {
    let lines = zip(result.positions, events).map { "\($0) \($1.id.uuidString)\n" }.joined()
    _ = lines.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
}

let writer = getpid()
await withTaskGroup(of: Void.self) { group in
    for worker in 0..<appenders {
        group.addTask {
            let stream = StreamID()
            var round = 0
            while true {
                let events = (0..<(1 + round % 4)).map { index in
                    ProposedEvent(type: "crash.test", data: Array("writer \(writer) worker \(worker) round \(round) event \(index)".utf8))
                }
                do {
                    acknowledge(try await log.append(events, to: stream), events)
                } catch {
                    FileHandle.standardError.write(Data("EventLogCrashWriter: append failed: \(error)\n".utf8))
                    exit(1)
                }
                round += 1
            }
        }
    }
}
