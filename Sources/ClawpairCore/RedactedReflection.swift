/// A value that holds a secret (a token, a password, a setup code): `print`, string
/// interpolation, `String(describing:)`, `String(reflecting:)` and `dump` show each secret
/// redacted (``Redaction/redact(_:)``: its length only) and every other field as it is, so
/// printing a value, or an options struct that holds one, never shows the secret.
///
/// Conforming types list their fields in ``redactedFields``, secrets already passed through
/// ``Redaction/redact(_:)``; the description, debug description and mirror follow from it.
public protocol RedactedReflection: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The fields shown, in order: label and value, every secret already redacted.
    var redactedFields: [(label: String, value: Any)] { get }
}

extension RedactedReflection {
    /// The mirror `dump` and reflection use: ``redactedFields``.
    public var customMirror: Mirror {
        Mirror(self, children: redactedFields.map { Mirror.Child(label: $0.label, value: $0.value) }, displayStyle: .struct)
    }

    /// `Type(label: value, …)` over ``redactedFields``.
    public var description: String {
        "\(Self.self)(" + redactedFields.map { "\($0.label): \(String(reflecting: $0.value))" }.joined(separator: ", ") + ")"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}

extension Redaction {
    /// ``redact(_:)`` of `secret` when there is one; nil stays nil.
    public static func redact(_ secret: String?) -> String? {
        secret.map { redact($0) }
    }
}
