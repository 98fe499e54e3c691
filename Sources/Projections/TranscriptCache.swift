import Foundation
import Synchronization

/// The transcripts a runner last stored, with the checkpoint stored with them: a session still being
/// recorded is folded on from here at the next catch-up instead of being read back from its rows (which
/// grow with the session). Valid only while the view's stored checkpoint is still that one (no one else
/// wrote the view meanwhile). Holds at most `segmentBudget` segments, the sessions folded longest ago
/// going first.
final class TranscriptCache: Sendable {
    private struct State {
        var checkpoint: UInt64?
        var transcripts: [UUID: (transcript: TranscriptView, lastUse: UInt64)] = [:]
        var segments = 0
        var uses: UInt64 = 0
    }

    private let state = Mutex(State())
    let segmentBudget: Int

    init(segmentBudget: Int = 200_000) {
        self.segmentBudget = segmentBudget
    }

    /// Takes the cached transcripts of `sessions` out of the cache, if it describes the view as of
    /// `checkpoint`: the caller's copy is then the only one, and folding into it copies nothing (a shared one
    /// would be copied whole at its first change, a cost that grows with the session).
    func take(_ sessions: Set<UUID>, storedThrough checkpoint: UInt64) -> [UUID: TranscriptView] {
        state.withLock { state in
            guard state.checkpoint == checkpoint else { return [:] }
            var found: [UUID: TranscriptView] = [:]
            for session in sessions {
                if let entry = state.transcripts.removeValue(forKey: session) {
                    state.segments -= entry.transcript.segments.count
                    found[session] = entry.transcript
                }
            }
            return found
        }
    }

    /// Records that `transcripts` were stored with `checkpoint`, and that sessions `removed` have no rows;
    /// what the cache held from before stays valid only if it described the view as of `previous`.
    func stored(_ transcripts: [UUID: TranscriptView], removed: Set<UUID>, checkpoint: UInt64, previous: UInt64) {
        state.withLock { state in
            if state.checkpoint != previous { state = State() }
            state.checkpoint = checkpoint
            state.uses += 1
            for session in removed {
                if let old = state.transcripts.removeValue(forKey: session) { state.segments -= old.transcript.segments.count }
            }
            for (session, transcript) in transcripts {
                state.segments += transcript.segments.count - (state.transcripts[session]?.transcript.segments.count ?? 0)
                state.transcripts[session] = (transcript, state.uses)
            }
            guard state.segments > segmentBudget else { return }
            for (session, entry) in state.transcripts.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                guard state.segments > segmentBudget * 3 / 4 else { break }
                state.transcripts[session] = nil
                state.segments -= entry.transcript.segments.count
            }
        }
    }

    /// Forgets everything (the view was dropped or written by someone else).
    func clear() {
        state.withLock { $0 = State() }
    }
}
