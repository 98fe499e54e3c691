import ArgumentParser
import Output
import TimeCoding

/// Checks an `--as-of` value: an RFC 3339 UTC time, or a usage error naming it.
func validateAsOf(_ value: String?) throws {
    if let value, RFC3339.milliseconds(value) == nil {
        throw ValidationError("--as-of \(value) is not an RFC 3339 UTC time such as 2026-01-05T09:00:00Z.")
    }
}
