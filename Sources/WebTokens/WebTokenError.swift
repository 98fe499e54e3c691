/// Why a token or a key set was refused: one sentence, never the token or a key.
package struct WebTokenError: Error, CustomStringConvertible, Sendable, Equatable {
    package let message: String

    init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
