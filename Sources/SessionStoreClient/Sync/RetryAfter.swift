import Foundation

/// A `Retry-After` value (RFC 9110 §10.2.3): a number of seconds, or an HTTP date.
enum RetryAfter {
    /// How long `value` says to wait from `now`; nil when it is neither form. A date in the past is no wait.
    static func delay(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.allSatisfy(\.isASCIIDigit), let seconds = Int(value) { return .seconds(seconds) }
        guard let date = httpDate(value) else { return nil }
        return .milliseconds(max(0, Int((date.timeIntervalSince(now) * 1000).rounded(.up))))
    }

    /// IMF-fixdate, the form servers send (`Sun, 06 Nov 1994 08:49:37 GMT`).
    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
