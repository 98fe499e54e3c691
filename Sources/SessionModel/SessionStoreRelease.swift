/// The release of SessionStore that wrote an output: `sessionstore --version`, `stats`, and every
/// export's metadata, so that a file found later says what made it.
public enum SessionStoreRelease {
    /// The version, as semantic versioning: 0.MINOR.PATCH until the formats are declared stable.
    public static let version = "0.32.1"

    /// "sessionstore 0.32.1": the generator named in exports.
    public static var generator: String { "sessionstore \(version)" }
}
