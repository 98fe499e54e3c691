/// A console page's model as swift-mustache reads it fastest: each model struct as a dictionary of its
/// stored properties, made once per page. Given the structs themselves, swift-mustache reflects a struct
/// again (`Mirror`, every property) at each name a template looks up, and for names it does not find
/// there, at each struct up the context stack: 50 ms for a sessions page of 50 rows, against 2 ms for the
/// same rows as JSON.
///
/// A model is a struct of plain values (ConsoleModels.swift): strings, numbers, booleans, optionals,
/// arrays and other model structs. A nil optional is left out, as swift-mustache treats a nil property:
/// the template then looks the name up in the enclosing context. Values that describe themselves
/// (`String`, `Int`, `Bool`) stay as they are.
enum TemplateValues {
    static func of(_ value: Any) -> Any {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .collection:
            return mirror.children.map { of($0.value) }
        case .struct where !(value is CustomStringConvertible):
            var fields: [String: Any] = [:]
            for child in mirror.children {
                guard let name = child.label, let present = unwrapped(child.value) else { continue }
                fields[name] = of(present)
            }
            return fields
        default:
            return value
        }
    }

    private static func unwrapped(_ value: Any) -> Any? {
        guard let optional = value as? any OptionalValue else { return value }
        return optional.wrappedValue.flatMap(unwrapped)
    }
}

private protocol OptionalValue {
    var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
    fileprivate var wrappedValue: Any? { self.map { $0 as Any } }
}
