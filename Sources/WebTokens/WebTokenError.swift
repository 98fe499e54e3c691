/// Why a token or a key set was refused: one sentence, never the token or a key.
public struct WebTokenError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String

    init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
