// Appends to an existing store until it is killed, for the crash-safety tests.
//
// Usage: EventLogCrashWriter STORE KEY_FILE ACK_FILE [APPENDERS]
//        EventLogCrashWriter --subscribe STORE KEY_FILE OUT_FILE
//
// APPENDERS tasks (8 unless given) append batches of one to four events to their own streams (event
// `writer PID worker W round R event I` of a batch of 1 + R % 4). After each append has returned (and so is
// durable), one line goes to ACK_FILE: `position event-id` per event. The crash-safety and power-loss
// tests kill this process and check that every acknowledged event survived and no batch is cut.
// With --subscribe it appends nothing: it subscribes from position 0 and writes `position event-id`
// per event it is given to OUT_FILE (the many-process soak test).
import EventLog
import EventLogPostgres
import Foundation

let options = EventLogOptions().withPostgreSQL()  // the multi-process tests run on PostgreSQL stores too

// A writer whose test process died (killed, crashed) must not write on forever: it exits when it
// is orphaned.
let parent = getppid()
Thread.detachNewThread {
    while getppid() == parent { usleep(100_000) }
    _exit(70)
}

// Under a file size limit (the disk-full test), a write fails instead of the process being killed.
signal(SIGXFSZ, SIG_IGN)

/// Writes `text` with one write(2): in the kernel the moment it returns, kill or not.
func writeLine(_ text: String, to descriptor: Int32) {
    _ = text.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
}

if CommandLine.arguments.count == 5, CommandLine.arguments[1] == "--subscribe" {
    let arguments = CommandLine.arguments
    do {
        let log = try EventLog.open(at: arguments[2], key: .keyFile(arguments[3]), options: options)
        let out = open(arguments[4], O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard out >= 0 else { exit(1) }
        for try await event in log.subscribe(from: 0) { writeLine("\(event.position) \(event.id.uuidString)\n", to: out) }
    } catch {
        FileHandle.standardError.write(Data("EventLogCrashWriter: subscription failed: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

let arguments = CommandLine.arguments
guard arguments.count == 4 || arguments.count == 5, let appenders = Int(arguments.count == 5 ? arguments[4] : "8"), appenders > 0 else {
    FileHandle.standardError.write(Data("usage: EventLogCrashWriter STORE KEY_FILE ACK_FILE [APPENDERS]\n".utf8))
    exit(64)
}
let log: EventLog
do {
    log = try EventLog.open(at: arguments[1], key: .keyFile(arguments[2]), options: options)
} catch {
    FileHandle.standardError.write(Data("EventLogCrashWriter: \(error)\n".utf8))
    exit(1)
}
let descriptor = open(arguments[3], O_WRONLY | O_CREAT | O_APPEND, 0o600)
guard descriptor >= 0 else { exit(1) }

/// One write(2) per acknowledgement: the line is in the kernel the moment it returns, kill or not.
func acknowledge(_ result: AppendResult, _ events: [ProposedEvent]) {
    writeLine(zip(result.positions, events).map { "\($0) \($1.id.uuidString)\n" }.joined(), to: descriptor)
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
