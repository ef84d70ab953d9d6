/// What a part of a library's text rendering is, so that the caller can paint it (colour on a
/// terminal, nothing elsewhere): the one vocabulary of every `paint` closure (the probe report,
/// a sighting's text block), which ClawpairCLIKit's `TextStyle.paint(_:_:)` maps to colours.
public enum TextRole: Sendable, Equatable, CaseIterable {
    /// Emphasis: a title, the winning URL.
    case bold
    /// Success: a passed route, the ✓ mark.
    case good
    /// Failure: the `unreachable` verdict.
    case bad
    /// A warning, or a failure's reason code.
    case warning
    /// Secondary text: qualifiers such as "(unauthenticated hint)", `cancelled`.
    case dim
}
