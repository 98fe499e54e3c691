/// The rules of a session's labels: names and values it is tagged with (`condition`, `speaker`,
/// `suite`, `derived_from`), kept in `session.started`, exported, and filtered on by the session list.
public enum SessionLabels {
    /// Labels a session may carry.
    public static let maxCount = 16
    /// The longest name, in bytes.
    public static let maxNameBytes = 64
    /// The longest value, in bytes of UTF-8.
    public static let maxValueBytes = 256

    /// Why `name` cannot name a label (1–64 bytes of `a`–`z`, `0`–`9`, `_`, `-`, `.`), or nil.
    public static func problem(name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= maxNameBytes else { return "must be 1 to \(maxNameBytes) bytes" }
        let allowed = name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
        return allowed ? nil : "must hold only a-z, 0-9, _, - and ."
    }

    /// Why `value` cannot be a label's value (1–256 bytes), or nil.
    public static func problem(value: String) -> String? {
        value.isEmpty || value.utf8.count > maxValueBytes ? "must be 1 to \(maxValueBytes) bytes" : nil
    }

    /// Why `labels` cannot be a session's, naming the first label at fault, or nil.
    public static func problem(labels: [String: String]) -> String? {
        if labels.count > maxCount { return "holds \(labels.count) labels; a session has at most \(maxCount)" }
        for (name, value) in labels.sorted(by: { $0.key < $1.key }) {
            if let problem = problem(name: name) { return "label name \"\(name)\" \(problem)" }
            if let problem = problem(value: value) { return "label \(name)'s value \(problem)" }
        }
        return nil
    }

    /// `NAME=VALUE` as a label, or nil when it has no `=`; the parts are not checked.
    public static func pair(_ text: String) -> (name: String, value: String)? {
        guard let equals = text.firstIndex(of: "=") else { return nil }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }

    /// The labels `texts` (each `NAME=VALUE`, as `derive --label` takes them) name, every one checked;
    /// `option` names where they came from in the error.
    /// - Throws: ``SessionModelError/Code/invalidLabel`` naming the first text that is not a label.
    public static func parse(_ texts: [String], option: String) throws(SessionModelError) -> [String: String] {
        var labels: [String: String] = [:]
        for (name, value) in try filter(texts, option: option) {
            if let problem = problem(value: value) {
                throw SessionModelError(.invalidLabel, "\(option) \(name)=…: the value \(problem)")
            }
            guard labels.updateValue(value, forKey: name) == nil else {
                throw SessionModelError(.invalidLabel, "\(option) names \(name) twice; a session has one value of each label")
            }
        }
        if labels.count > maxCount {
            throw SessionModelError(.invalidLabel, "\(option) gives \(labels.count) labels; a session has at most \(maxCount)")
        }
        return labels
    }

    /// The labels a session-list filter asks for (`sessions --label`, `?label=`): each text `NAME=VALUE`
    /// with a valid name and a value; a session matches when it has them all.
    /// - Throws: ``SessionModelError/Code/invalidLabel`` naming the first text that is not one.
    public static func filter(_ texts: [String], option: String) throws(SessionModelError) -> [(name: String, value: String)] {
        try texts.map { text throws(SessionModelError) in
            guard let (name, value) = pair(text), !value.isEmpty else {
                throw SessionModelError(.invalidLabel, "\(option) \"\(text)\" is not NAME=VALUE, such as condition=noise:white:10")
            }
            if let problem = problem(name: name) {
                throw SessionModelError(.invalidLabel, "\(option) \"\(text)\": the name \(problem)")
            }
            return (name, value)
        }
    }
}
