/// The kind of an error of `Domain`: a name, compared by name, and the key a caller matches on.
///
/// Each error type defines its codes in a constrained extension, so that `error.code == .wrongKey`
/// and `catch EventLogError.Code.storeBusy` read as they would with an enum, while new codes can be
/// added without breaking a caller's exhaustive `switch` (there is none to break):
///
/// ```swift
/// extension ErrorCode where Domain == EventLogError {
///     public static let wrongKey = Self("wrong key", .key)
/// }
/// ```
///
/// Each code also says what kind of failure it is (``FailureKind``), which decides the CLI's exit status
/// and the server's HTTP answer: the one mapping of errors to what people see.
public struct ErrorCode<Domain>: Hashable, Sendable, CustomStringConvertible {
    /// The code's name, as printed.
    public let name: String
    /// What kind of failure it is.
    public let kind: FailureKind

    /// A code named `name` of `kind`; only the package defines codes.
    package init(_ name: String, _ kind: FailureKind) {
        self.name = name
        self.kind = kind
    }

    public var description: String { name }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }

    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// An error of one domain, in one shape: a ``code`` to match, one sentence for people, and the error
/// of a lower layer that caused it, kept rather than flattened into the sentence.
public protocol CodedError: Error, CustomStringConvertible, CustomDebugStringConvertible {
    /// What kind of failure this is; match on it.
    var code: ErrorCode<Self> { get }
    /// One sentence naming what failed and where.
    var message: String { get }
    /// The error that caused this one (a storage engine's, the system's), when there was one.
    var underlying: (any Error)? { get }
}

extension CodedError {
    public var underlying: (any Error)? { nil }

    /// What kind of failure this is (its code's).
    public var kind: FailureKind { code.kind }

    public var description: String { message }

    /// The code, the sentence and the chain of causes: for logs and for people debugging.
    public var debugDescription: String {
        let text = "\(Self.self)(\(code)): \(message)"
        guard let underlying else { return text }
        return text + "\ncaused by " + String(reflecting: underlying)
    }
}

extension ErrorCode where Domain: CodedError {
    /// Whether `error` is of this code: `catch EventLogError.Code.storeBusy { … }`, `case .storeBusy`.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? Domain)?.code == code
    }
}
