import Foundation

/// NDJSON lines of the growth measurements' sessions.
enum GrowthLines {
    /// One committed segment, `number`, about as long as a dictated sentence.
    static func commit(_ number: Int, in session: UUID) -> String {
        #"{"type":"transcript.committed","session":"\#(session.uuidString.lowercased())","at":"2026-11-21T10:00:01Z","segment":"s\#(number)","text":"the words of segment number \#(number), about as long as one","start_ms":\#(number * 1000),"end_ms":\#(number * 1000 + 900)}"#
    }
}
