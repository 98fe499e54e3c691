extension StringProtocol {
    /// The value without the optional white space HTTP allows around it (RFC 9110 §5.6.3: spaces and
    /// tabs). Foundation's `trimmingCharacters(in:)` did the same at about 3% of the server's CPU under
    /// 64 writers, on every request (a profile of `serve` under the Go load client).
    var trimmingOptionalWhiteSpace: SubSequence {
        let isWhiteSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isWhiteSpace($0) }), let last = lastIndex(where: { !isWhiteSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
