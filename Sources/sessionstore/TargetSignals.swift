import Foundation
import Replay
import Synchronization

/// Stops the systems under test with this process: SIGINT, SIGTERM or SIGHUP kill every running
/// target's process group, then end this process as the signal would have. A target runs in a process
/// group of its own (so that a hung one can be killed with its children), which a terminal's Ctrl-C
/// does not reach.
enum TargetSignals {
    private static let sources = Mutex<[any DispatchSourceSignal]>([])

    /// Installs the handlers (once).
    static func install() {
        sources.withLock { sources in
            guard sources.isEmpty else { return }
            for number in [SIGINT, SIGTERM, SIGHUP] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    ProcessReplayTarget.killRunningTargets()
                    signal(number, SIG_DFL)
                    kill(getpid(), number)  // to the process: raise() would pend on this blocked worker thread
                }
                source.resume()
                sources.append(source)
            }
        }
    }
}
